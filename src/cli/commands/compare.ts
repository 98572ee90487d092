import { extname } from 'node:path';
import { Command, Option } from 'commander';
import { compareSummaries, type FailOn } from '../../decide/compare-summaries.js';
import {
  COMPARISON_FORMATS,
  comparisonSummaryLine,
  comparisonVerdictLine,
  formatComparisonHtml,
  formatComparisonJson,
  formatComparisonMarkdown,
  formatComparisonTable,
  type ComparisonFormat,
} from '../../report/format-comparison.js';
import { useColor, type CliIo } from '../io.js';
import { parseAlpha } from '../option-parsers.js';
import { readSummary } from '../read-summary.js';
import { writeOut } from '../write-out.js';

const HELP = `
Compares two run summaries (written by spanscore score --summary) per test case x scorer: the
pass counts of each side, the direction (down, up, same), a one-sided Fisher's exact test in
that direction (pValue) and a verdict: regressed or improved (significant at --alpha), unchanged,
new, removed, or not_comparable (the scorer's configuration changed: never a false regression).
A change that is not significant, such as a single run flipping from 1/1 to 0/1, stays unchanged
and is shown as a flip.

Exit codes:
  0  no regression (or no --fail-on)
  1  --fail-on regression: a verdict is regressed; --fail-on any-regression: any pass rate fell
  2  a file cannot be read, is not a run summary, is of another summary version, or is past
     the bounds on one (32 MiB, a million JSON items)

Examples:
  spanscore compare baseline.json current.json
  spanscore compare baseline.json current.json --fail-on regression --format markdown >> "$GITHUB_STEP_SUMMARY"
`;

/** `spanscore compare`: two run summaries, per test case × scorer, with a verdict each. */
export function compareCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('compare')
    .usage(
      'BASELINE CURRENT [--format table|json|markdown|html] [--output FILE] [--alpha A] [--fail-on regression|any-regression]',
    )
    .description('compare two run summaries: which test cases regressed, significantly')
    .argument('<baseline>', 'the run summary to compare against (e.g. committed in the repo)')
    .argument('<current>', 'the run summary of the run under review')
    .addOption(new Option('-f, --format <format>', 'output format').choices(COMPARISON_FORMATS))
    .option('-o, --output <file>', 'write the comparison to a file instead of stdout')
    .option('--alpha <p>', 'significance level of the one-sided Fisher test', parseAlpha, 0.05)
    .addOption(
      new Option('--fail-on <when>', 'exit 1 on a significant regression, or on any fall').choices([
        'regression',
        'any-regression',
      ]),
    )
    .addHelpText('after', HELP)
    .action(
      async (
        baselineFile: string,
        currentFile: string,
        opts: { format?: ComparisonFormat; output?: string; alpha: number; failOn?: FailOn },
      ) => {
        const baseline = await readSummary(baselineFile);
        const current = await readSummary(currentFile);
        const report = compareSummaries(baseline, current, {
          alpha: opts.alpha,
          ...(opts.failOn && { failOn: opts.failOn }),
        });
        const format = opts.format ?? inferFormat(opts.output);
        const text =
          format === 'json'
            ? formatComparisonJson(report)
            : format === 'markdown'
              ? formatComparisonMarkdown(report)
              : format === 'html'
                ? formatComparisonHtml(report)
                : formatComparisonTable(report, !opts.output && useColor(io.stdout));
        if (opts.output) {
          await writeOut(opts.output, text, '--output');
          io.stderr.write(`${comparisonSummaryLine(report)}\n${comparisonVerdictLine(report)}\n`);
        } else io.stdout.write(text);
        setExitCode(report.decision.outcome === 'failed' ? 1 : 0);
      },
    );
}

function inferFormat(output: string | undefined): ComparisonFormat {
  const ext = output ? extname(output) : '';
  if (ext === '.json') return 'json';
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  if (ext === '.html' || ext === '.htm') return 'html';
  return 'table';
}

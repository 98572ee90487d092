import { extname } from 'node:path';
import cliProgress from 'cli-progress';
import { SpanscoreError } from '../../errors/spanscore-error.js';
import { Command, Option } from 'commander';
import { readTraceFiles } from '../../ingest/read-trace-files.js';
import { aggregateTrials } from '../../decide/aggregate-trials.js';
import { compareSummaries, type FailOn } from '../../decide/compare-summaries.js';
import { runExitCode } from '../../decide/run-exit-code.js';
import { buildRunSummary, formatRunSummary } from '../../decide/run-summary.js';
import {
  comparisonSummaryLine,
  comparisonVerdictLine,
  formatComparisonTable,
} from '../../report/format-comparison.js';
import { formatJson, formatJsonl } from '../../report/format-json.js';
import { formatMarkdown } from '../../report/format-markdown.js';
import { formatHtml } from '../../report/format-html.js';
import { formatJunit } from '../../report/format-junit.js';
import {
  formatSummary,
  formatTable,
  formatTrialsTable,
  hasTrials,
} from '../../report/format-table.js';
import { countOutcomes, toResultRows } from '../../report/result-row.js';
import { scoreSuite } from '../../score/score-suite.js';
import { loadConfig } from '../../config/load-config.js';
import { createLlmContext } from '../../judge/create-llm-context.js';
import { loadSuite } from '../../suite/load-suite.js';
import { SPANSCORE_VERSION } from '../../version.js';
import { useColor, type CliIo } from '../io.js';
import { readSummary } from '../read-summary.js';
import { reportProblems } from '../report-problems.js';
import { writeOut } from '../write-out.js';
import { collectLabel, parseAlpha } from '../option-parsers.js';
import { traceFileBoundOption, traceFileBytes } from '../trace-file-bound-option.js';

const FORMATS = ['table', 'json', 'jsonl', 'junit', 'html', 'markdown'] as const;
type Format = (typeof FORMATS)[number];
// Below these sizes a run finishes too fast for a progress bar to help.
const PROGRESS_MIN_FILES = 50;
const PROGRESS_MIN_TRACES = 2000;

const HELP = `
Inputs are OTLP trace exports: OTLP/JSON (.json, lowerCamel or snake_case keys), JSON Lines of
requests (.jsonl, .ndjson), OTLP protobuf (.pb, .binpb, .protobuf), any of them gzipped (.gz), and
directories of these (read recursively). Spans of one trace may be spread over many files. A JSON
input that is not an OTLP export (no resourceSpans) is read as zero spans and named in a warning.

A trace belongs to a test case through an attribute on any of its spans: spanscore.test_case.id,
ai.telemetry.metadata.testCaseId, test_case.id or gen_ai.test_case.id (or the suite's own
testCaseIdAttributes).

Output (--format, default table on a terminal, jsonl otherwise; --output FILE infers it from
.json, .jsonl, .xml or .html): every result has traceId, testCaseId, scorer, status
(scored | skipped | failed | missing), score (null unless scored), label (pass | fail),
reason, toolsUsed, toolSequence and details. junit writes one testcase per test case x scorer;
html one self-contained page (a CI artifact): pass rate per scorer, a test case x scorer
matrix, each failure with its reason, tool diff and trace id, and a filter box.

Several traces of one test case are each scored, then aggregated per test case x scorer: runs,
pass rate with its 95% Wilson interval, pass@k and pass^k, stability (stable_pass, stable_fail,
flaky). A suite or case with trials: { min, passRate } passes on its pass rate, not each run.
--summary FILE writes those aggregates as a run summary to commit as a baseline; --baseline FILE
compares this run with one (see spanscore compare).

Exit codes:
  0  every scored result passed (with --baseline: no regression, see --fail-on)
  1  a result failed, a scorer errored, or a test case had no trace (or missed its trials
     requirement); with --baseline: a regression
  2  usage error, invalid suite or summary, or some input was rejected (the rest is still scored)

Examples:
  spanscore score --suite config/suites/weather-agent.yaml test/fixtures/otlp
  spanscore score --suite suite.yaml --format junit --output results.xml traces/*.json.gz
`;

/** `spanscore score`: score trace files against a suite, offline, with no Redis. */
export function scoreCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('score')
    .usage(
      '--suite FILE [--format table|json|jsonl|junit|html|markdown] [--output FILE] [--summary FILE] [--label KEY=VALUE]... [--baseline FILE] [--fail-on regression|any-regression] [--alpha A] [--config FILE] [--no-progress] [--max-decompressed-mb MB] INPUT...',
    )
    .description('score OTLP trace files against a suite of test cases, offline')
    .argument('<inputs...>', 'trace files or directories')
    .requiredOption('-s, --suite <file>', 'suite file (YAML or JSON)')
    .addOption(new Option('-f, --format <format>', 'output format').choices(FORMATS))
    .option('-o, --output <file>', 'write results to a file instead of stdout')
    .option('-c, --config <file>', 'config file: its judge section (model, prices, budget) is used')
    .option('--summary <file>', 'also write a run summary (JSON) to commit as a baseline')
    .option(
      '--label <key=value>',
      'a label of the run summary, e.g. git.sha=… (repeatable)',
      collectLabel,
      {},
    )
    .option(
      '--baseline <file>',
      'compare with this run summary; the comparison decides the exit code',
    )
    .addOption(
      new Option(
        '--fail-on <when>',
        'with --baseline: exit 1 on a significant regression, or on any fall',
      )
        .choices(['regression', 'any-regression'])
        .default('regression'),
    )
    .option('--alpha <p>', 'with --baseline: significance level', parseAlpha, 0.05)
    .option('--no-progress', 'never show a progress bar')
    .addOption(traceFileBoundOption())
    .addHelpText('after', HELP)
    .action(
      async (
        inputs: string[],
        opts: {
          suite: string;
          config?: string;
          format?: Format;
          output?: string;
          progress: boolean;
          maxDecompressedMb: number;
          summary?: string;
          label: Record<string, string>;
          baseline?: string;
          failOn: FailOn;
          alpha: number;
        },
        command: Command,
      ) => {
        // An option that does nothing without another is a mistake to say, not to ignore.
        if (!opts.baseline)
          for (const [option, flag] of [
            ['failOn', '--fail-on'],
            ['alpha', '--alpha'],
          ] as const)
            if (command.getOptionValueSource(option) === 'cli')
              throw new SpanscoreError(
                'SS_USAGE',
                `${flag} needs --baseline FILE: it applies to the comparison with a baseline run summary, which decides the exit code`,
              );
        // Read the baseline first: an unreadable one stops the run before any scoring.
        const baseline = opts.baseline ? await readSummary(opts.baseline) : undefined;
        const config = await loadConfig(opts.config ? { file: opts.config } : {});
        const llm = createLlmContext(config.judge, { limits: 'process', retries: 'client' });
        const suite = await loadSuite(opts.suite, llm ? { llm } : {});
        const format = opts.format ?? inferFormat(opts.output, io);
        const progress =
          opts.progress && io.stderr.isTTY === true
            ? new cliProgress.SingleBar(
                {
                  stream: process.stderr,
                  clearOnComplete: true,
                  format: '{phase} [{bar}] {value}/{total}',
                },
                cliProgress.Presets.shades_classic,
              )
            : undefined;
        let started = false;
        const tick = (phase: string, min: number) => (done: number, total: number) => {
          if (!progress || total < min) return;
          if (!started) {
            progress.start(total, 0, { phase });
            started = true;
          }
          progress.setTotal(total);
          progress.update(done, { phase });
        };
        const read = await readTraceFiles(inputs, {
          maxDecompressedBytes: traceFileBytes(opts.maxDecompressedMb),
          onFile: (_file, done, total) => tick('reading', PROGRESS_MIN_FILES)(done, total),
        });
        if (started) {
          progress?.stop();
          started = false;
        }
        const run = await scoreSuite(read.spans, suite, {
          onTrace: tick('scoring', PROGRESS_MIN_TRACES),
        });
        if (started) progress?.stop();

        const rows = toResultRows(run, suite);
        const summary = countOutcomes(rows);
        const trials = aggregateTrials(rows, suite);
        const now = new Date();
        const runSummary = buildRunSummary(trials, {
          suite: suite.name,
          spanscoreVersion: SPANSCORE_VERSION,
          createdAt: now,
          labels: opts.label,
        });
        const comparison = baseline
          ? compareSummaries(baseline, runSummary, { alpha: opts.alpha, failOn: opts.failOn })
          : undefined;
        const color = !opts.output && useColor(io.stdout);
        let text: string;
        switch (format) {
          case 'table':
            text = formatTable(rows, summary, run.unmatched.length, color);
            if (hasTrials(trials)) text += `\n${formatTrialsTable(trials, color)}`;
            if (comparison) text += `\n${formatComparisonTable(comparison, color)}`;
            break;
          case 'json':
            text = formatJson(rows, trials, comparison);
            break;
          case 'jsonl':
            text = formatJsonl(rows);
            break;
          case 'html':
            text = formatHtml(rows, {
              suite,
              summary,
              unmatched: run.unmatched.length,
              generatedAt: now,
              trials,
              ...(comparison && { comparison }),
            });
            break;
          case 'markdown':
            text = formatMarkdown(rows, {
              suiteName: suite.name,
              summary,
              trials,
              ...(comparison && { comparison }),
            });
            break;
          case 'junit':
            text = formatJunit(rows, suite.name, trials);
        }
        if (opts.output) await writeOut(opts.output, text, '--output');
        else io.stdout.write(text);
        if (opts.summary) await writeOut(opts.summary, formatRunSummary(runSummary), '--summary');
        reportProblems(read.problems, io);
        reportProblems(read.warnings, io, 'warning');
        if (opts.output || format !== 'table') {
          io.stderr.write(`${formatSummary(summary, run.unmatched.length, useColor(io.stderr))}\n`);
          if (comparison)
            io.stderr.write(
              `${comparisonSummaryLine(comparison)}\n${comparisonVerdictLine(comparison)}\n`,
            );
        }
        if (read.files === 0 && read.problems.length === 0)
          io.stderr.write('spanscore: no trace files found in the inputs\n');
        setExitCode(
          runExitCode({
            rows,
            trials,
            inputProblems: read.problems.length,
            ...(comparison && { comparison }),
          }),
        );
      },
    );
}

function inferFormat(output: string | undefined, io: CliIo): Format {
  const ext = output ? extname(output) : '';
  if (ext === '.xml') return 'junit';
  if (ext === '.json') return 'json';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.html' || ext === '.htm') return 'html';
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  return !output && io.stdout.isTTY ? 'table' : 'jsonl';
}

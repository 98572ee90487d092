import { extname } from 'node:path';
import { Command, Option } from 'commander';
import { readFileAtMost } from '../../config/read-file-at-most.js';
import { SpanscoreError } from '../../errors/spanscore-error.js';
import { readTraceFiles } from '../../ingest/read-trace-files.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from '../../normalize/find-test-case-id.js';
import { groupSpansByTrace } from '../../normalize/group-spans-by-trace.js';
import { normalizeTrace } from '../../normalize/normalize-trace.js';
import { recordTestCases, type RecordedArgsMode } from '../../record/record-test-cases.js';
import { checkSuiteSize, SUITE_LIMITS, suiteTooLarge } from '../../suite/suite-limits.js';
import {
  mergeSuiteJson,
  mergeSuiteYaml,
  renderSuiteJson,
  renderSuiteYaml,
} from '../../record/render-suite.js';
import type { CliIo } from '../io.js';
import { collect } from '../option-parsers.js';
import { reportProblems } from '../report-problems.js';
import { suiteSchemaPath } from '../suite-schema-path.js';
import { traceFileBoundOption, traceFileBytes } from '../trace-file-bound-option.js';
import { writeOut } from '../write-out.js';

const HELP = `
Writes a suite with one test case per trace from trace files (everything score reads): the test
case id from the trace (else one made from its root span's name and trace id), input from the
conversation's first user message, expectedTools, and expectedCalls with the recorded arguments,
compared by --args (default subset). Volatile arguments (ids, timestamps, UUIDs, opaque tokens:
see docs/suites-and-scorers.md) are left out and named in a comment. The suite is YAML, or JSON
when --out ends in .json; without --out it goes to stdout.

Several traces of one test case: the earliest is recorded and the others counted (--strict: an
error). --merge FILE adds the cases FILE lacks and leaves every other byte of it as it was;
--update ID re-records that case in place.

Exit codes:
  0  written
  1  --strict and a test case has several traces (nothing written)
  2  usage error, or some input was rejected (the rest is recorded)

Examples:
  spanscore suite record --out evals/suite.yaml traces/
  spanscore suite record --merge evals/suite.yaml --update book-trip traces/today.json
`;

/** `spanscore suite`: suites from traces. */
export function suiteCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const suite = new Command('suite')
    .usage('record [options] INPUT...')
    .description('write suites from traces: `suite record` turns recorded runs into test cases');
  suite.addCommand(
    new Command('record')
      .usage(
        '[--out FILE] [--merge FILE] [--update ID]... [--args exact|subset|ignore] [--name NAME] [--test-case-id-attribute NAME]... [--strict] [--max-decompressed-mb MB] INPUT...',
      )
      .description('record test cases from trace files: the calls each trace made')
      .argument('<inputs...>', 'trace files or directories')
      .option('-o, --out <file>', 'write the suite here (YAML, or JSON for .json); default stdout')
      .option('--merge <file>', 'add the new cases to this suite, keeping it as it is')
      .option('--update <id>', 'with --merge: re-record this test case (repeatable)', collect, [])
      .addOption(
        new Option('--args <mode>', 'how recorded arguments are compared')
          .choices(['exact', 'subset', 'ignore'])
          .default('subset'),
      )
      .option('--name <name>', 'the suite name', 'recorded')
      .option(
        '--test-case-id-attribute <name>',
        'read test case ids from this attribute (repeatable; replaces the defaults)',
        collect,
        [],
      )
      .option('--strict', 'fail when a test case has several traces')
      .addOption(traceFileBoundOption())
      .addHelpText('after', HELP)
      .action(
        async (
          inputs: string[],
          opts: {
            out?: string;
            merge?: string;
            update: string[];
            args: RecordedArgsMode;
            name: string;
            testCaseIdAttribute: string[];
            strict?: boolean;
            maxDecompressedMb: number;
          },
        ) => {
          if (opts.update.length && !opts.merge)
            throw new SpanscoreError('SS_USAGE', '--update needs --merge (the suite to update)');
          const attributes = opts.testCaseIdAttribute.length
            ? opts.testCaseIdAttribute
            : DEFAULT_TEST_CASE_ID_ATTRIBUTES;
          const read = await readTraceFiles(inputs, {
            maxDecompressedBytes: traceFileBytes(opts.maxDecompressedMb),
          });
          const traces = [...groupSpansByTrace(read.spans)].map(([traceId, spans]) =>
            normalizeTrace(traceId, spans, { testCaseIdAttributes: attributes }),
          );
          const recording = recordTestCases(traces, {
            args: opts.args,
            ...(opts.strict && { strict: true }),
          });
          reportProblems(read.problems, io);
          reportProblems(read.warnings, io, 'warning');
          if (recording.conflicts.length) {
            for (const c of recording.conflicts)
              io.stderr.write(`spanscore: --strict: ${c}; record them one at a time\n`);
            setExitCode(1);
            return;
          }
          for (const w of recording.warnings) io.stderr.write(`spanscore: warning: ${w}\n`);

          const target = opts.out ?? opts.merge;
          const json = extname(target ?? '') === '.json';
          let text: string;
          if (opts.merge) {
            const existing = await readExisting(opts.merge);
            const merged = (extname(opts.merge) === '.json' ? mergeSuiteJson : mergeSuiteYaml)(
              existing,
              opts.merge,
              recording.cases,
              opts.update,
            );
            text = merged.text;
            io.stderr.write(
              `spanscore suite record: ${merged.added.length} added, ${merged.updated.length} updated, ${merged.kept.length} already in the suite and kept\n`,
            );
          } else {
            const head = {
              name: opts.name,
              args: opts.args,
              schema: suiteSchemaPath(target),
              ...(opts.testCaseIdAttribute.length && {
                testCaseIdAttributes: opts.testCaseIdAttribute,
              }),
            };
            text = json
              ? renderSuiteJson(recording.cases, head)
              : renderSuiteYaml(recording.cases, head);
            io.stderr.write(
              `spanscore suite record: ${recording.cases.length} test case(s) from ${traces.length} trace(s)\n`,
            );
          }
          if (target) await writeOut(target, text, opts.out ? '--out' : '--merge');
          else io.stdout.write(text);
          if (read.files === 0 && read.problems.length === 0)
            io.stderr.write('spanscore: no trace files found in the inputs\n');
          setExitCode(read.problems.length ? 2 : 0);
        },
      ),
  );
  return suite;
}

/**
 * The suite `--merge` names, held to the bounds `loadSuite` holds a suite to (8 MiB, a million YAML
 * tokens) before it is parsed: read at most one byte past 8 MiB.
 */
async function readExisting(file: string): Promise<string> {
  let head;
  try {
    head = await readFileAtMost(file, SUITE_LIMITS.maxBytes);
  } catch (error) {
    throw new SpanscoreError(
      'SS_INPUT_NOT_FOUND',
      `cannot read the suite to merge into: ${(error as Error).message}`,
      {
        location: { file },
        cause: error,
      },
    );
  }
  if (!head.whole) throw suiteTooLarge(file);
  const text = head.data.toString('utf8');
  checkSuiteSize(text, file);
  return text;
}

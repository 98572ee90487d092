import { Command, Option } from 'commander';
import { readTraceFiles } from '../../ingest/read-trace-files.js';
import { DEFAULT_SESSION_ID_ATTRIBUTES } from '../../normalize/find-session-id.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from '../../normalize/find-test-case-id.js';
import { findRoot, traceStartOf } from '../../normalize/trace-root.js';
import { groupSpansByTrace } from '../../normalize/group-spans-by-trace.js';
import {
  inspectionToJson,
  inspectTrace,
  type TraceInspection,
} from '../../normalize/inspect-trace.js';
import { describeSchemaSource, type SchemaSource } from '../../normalize/schema-source.js';
import { terminalText } from '../../report/terminal-text.js';
import { textTable } from '../../report/text-table.js';
import type { CliIo } from '../io.js';
import { collect } from '../option-parsers.js';
import { reportProblems } from '../report-problems.js';
import { traceFileBoundOption, traceFileBytes } from '../trace-file-bound-option.js';

const HELP = `
For each trace in the inputs (everything score reads): the test case id and the attribute it came
from, the conventions (extractors) that matched and on how many spans, every tool call (name, raw
name, source executed/requested and whether a GenAI log record carried it, span id, arguments,
result; truncated in the table; its arguments check and the schema it was checked against), the
tools the model was offered, and diagnostics: why a score may be wrong for a reason outside the agent
(no tool calls recorded although models were called, a test case id only on a child span,
arguments that do not parse, requested calls no span executed, a span two conventions claim).

--session ID shows the traces of one session (a conversation, one trace per turn: see
docs/sessions.md) in turn order, each headed by its turn; a trace's session id is read from
gen_ai.conversation.id, session.id and the other conventions (--session-id-attribute adds names).

--format json prints one object per trace per line: traceId, testCaseId, testCaseIdAttribute,
sessionId, sessionIdAttribute (and turn, with --session),
conventions, toolCalls (each with signal: spans or logs), availableTools, diagnostics, and more.
Files may hold OTLP logs requests beside trace requests (JSON, JSON Lines, name.logs.pb).

Exit codes:
  0  inspected
  2  usage error, some input was rejected, or --trace (--session) names a trace (a session) not
     in the inputs
`;

const CELL = 60;
const clip = (text: string): string => (text.length <= CELL ? text : `${text.slice(0, CELL - 1)}…`);
const show = (value: unknown): string =>
  value === undefined ? '–' : clip(typeof value === 'string' ? value : JSON.stringify(value));

/** `spanscore inspect`: what spanscore reads from each trace, and why a score may be off. */
export function inspectCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('inspect')
    .usage(
      '[--format table|json] [--trace ID | --session ID] [--test-case-id-attribute NAME]... [--session-id-attribute NAME]... [--max-decompressed-mb MB] INPUT...',
    )
    .description(
      'show what spanscore reads from each trace: test case, conventions, tool calls, diagnostics',
    )
    .argument('<inputs...>', 'trace files or directories')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['table', 'json']))
    .option('--trace <id>', 'only this trace (32 hex digits)')
    .option('--session <id>', "only this session's traces, in turn order")
    .option(
      '--session-id-attribute <name>',
      'also read session ids from this attribute (repeatable; after the defaults)',
      collect,
      [],
    )
    .option(
      '--test-case-id-attribute <name>',
      'read test case ids from this attribute (repeatable; replaces the defaults)',
      collect,
      [],
    )
    .addOption(traceFileBoundOption())
    .addHelpText('after', HELP)
    .action(
      async (
        inputs: string[],
        opts: {
          format?: 'table' | 'json';
          trace?: string;
          session?: string;
          testCaseIdAttribute: string[];
          sessionIdAttribute: string[];
          maxDecompressedMb: number;
        },
      ) => {
        const read = await readTraceFiles(inputs, {
          maxDecompressedBytes: traceFileBytes(opts.maxDecompressedMb),
        });
        reportProblems(read.problems, io);
        reportProblems(read.warnings, io, 'warning');
        const attributes = opts.testCaseIdAttribute.length
          ? opts.testCaseIdAttribute
          : DEFAULT_TEST_CASE_ID_ATTRIBUTES;
        let traces = [...groupSpansByTrace(read.spans)];
        if (opts.trace) {
          const wanted = opts.trace.toLowerCase();
          traces = traces.filter(([id]) => id === wanted);
          if (traces.length === 0) {
            io.stderr.write(`spanscore: no trace ${opts.trace} in the inputs\n`);
            setExitCode(2);
            return;
          }
        }
        const format = opts.format ?? (io.stdout.isTTY ? 'table' : 'json');
        const sessionIdAttributes = [
          ...new Set([...DEFAULT_SESSION_ID_ATTRIBUTES, ...opts.sessionIdAttribute]),
        ];
        let inspections = traces.map(([traceId, spans]) => ({
          inspection: inspectTrace(traceId, spans, {
            testCaseIdAttributes: attributes,
            sessionIdAttributes,
          }),
          startUnixNano: traceStartOf(spans, findRoot(spans)),
        }));
        if (opts.session !== undefined) {
          inspections = inspections
            .filter(i => i.inspection.sessionId === opts.session)
            .sort((a, b) => (a.startUnixNano < b.startUnixNano ? -1 : 1));
          if (inspections.length === 0) {
            io.stderr.write(
              `spanscore: no trace of session ${JSON.stringify(opts.session)} in the inputs (read from ${sessionIdAttributes.join(', ')})\n`,
            );
            setExitCode(2);
            return;
          }
          if (format === 'table')
            io.stdout.write(
              `session ${opts.session}: ${inspections.length} turn(s), in the order they started\n\n`,
            );
        }
        inspections.forEach(({ inspection }, i) => {
          const turn = opts.session === undefined ? undefined : i;
          io.stdout.write(
            format === 'json'
              ? `${JSON.stringify({ ...inspectionToJson(inspection), ...(turn !== undefined && { turn }) })}\n`
              : `${turn !== undefined ? `turn ${turn + 1}: ` : ''}${toTable(inspection)}\n`,
          );
        });
        setExitCode(read.problems.length ? 2 : 0);
      },
    );
}

/** The route: `triage → billing (transfer_to_billing) → triage`. */
function routeText(i: TraceInspection): string {
  return i.route.map(t => (t.handoff ? `${t.agent} (${t.handoff})` : t.agent)).join(' → ');
}

/** Where a call's schema came from, in the table: `trace`, `learned: …`, `config: …`. */
function schemaSourceCell(source: SchemaSource): string {
  return source.kind === 'trace' ? 'trace' : `${source.kind}: ${describeSchemaSource(source)}`;
}

function toTable(i: TraceInspection): string {
  // Every text from the trace (names, ids, keys, messages) goes through terminalText, as the
  // table's cells do: an escape sequence in a span name would otherwise reach the terminal.
  const t = terminalText;
  const lines = [
    `trace ${i.traceId}: ${i.spans} span(s)${i.logRecords ? `, ${i.logRecords} GenAI log record(s)` : ''}, ${i.modelCalls} model call(s), root ${i.root ? `"${t(i.root.name)}"` : 'not found'}`,
    `  test case      ${i.testCaseId === null ? '(none: no test case id attribute)' : `${t(i.testCaseId)} (${t(i.testCaseIdAttribute ?? '')}${i.testCaseIdInJson ? `: key ${t(i.testCaseIdInJson.key)} of the JSON attribute ${t(i.testCaseIdInJson.attribute)}` : ''}${i.testCaseIdOnRoot ? ', on the root span' : ', on a child span'})`}`,
    ...(i.sessionId !== null
      ? [`  session        ${t(i.sessionId)} (${t(i.sessionIdAttribute ?? '')})`]
      : []),
    `  conventions    ${i.conventions.map(c => `${c.id}: ${[c.executedSpans && `${c.executedSpans} tool span(s)`, c.requestedSpans && `${c.requestedSpans} model span(s)`].filter(Boolean).join(', ')}`).join('; ') || '(none matched)'}`,
    `  tools offered  ${t(i.availableTools.map(tool => tool.name).join(', ')) || '(none recorded)'}`,
  ];
  if (i.agents.length) lines.push(`  agents         ${t(routeText(i))}`);
  if (i.toolCalls.length) {
    const table = textTable(
      [
        '#',
        'tool',
        ...(i.agents.length ? ['agent'] : []),
        'raw name',
        'source',
        'span',
        'outcome',
        'arguments',
        'result',
        'arguments check',
        'schema',
      ],
      i.toolCalls.map((c, n) => [
        String(n + 1),
        c.name,
        ...(i.agents.length ? [c.agent ?? '–'] : []),
        c.rawName,
        c.signal === 'logs' ? `${c.source} (log record)` : c.source,
        c.spanId,
        c.outcome === 'ok' ? 'ok' : `${c.outcome}: ${clip(c.error ?? '')}`,
        show(c.arguments),
        show(c.result),
        c.offered === false
          ? 'not offered to the model'
          : c.argumentProblems === null
            ? '–'
            : c.argumentProblems.length === 0
              ? 'valid'
              : clip(c.argumentProblems.join('; ')),
        c.schemaSource ? clip(schemaSourceCell(c.schemaSource)) : '–',
      ]),
    );
    lines.push('', ...table.split('\n').map(l => `  ${l}`));
  } else lines.push('  tool calls     (none)');
  if (i.diagnostics.length)
    lines.push('', '  diagnostics', ...i.diagnostics.map(d => `    ${d.code}: ${t(d.message)}`));
  return `${lines.join('\n')}\n`;
}

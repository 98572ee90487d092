import type { ResultSink } from '../../src/score/result-sink.js';
import { spanId, traceId, type SpanInput } from './otlp-json-builder.js';

/**
 * The suite the turns of {@link sessionTurn} are scored by: session test case `refund`, the order
 * looked up in turn 1, the identity verified before the refund in turn 2.
 */
export const SESSION_SUITE_YAML = `
name: support
scorers: [tool_trajectory]
testCases:
  - id: refund
    session: true
    turns:
      - expectedCalls: [lookup_order]
      - expectedCalls: [verify_identity, issue_refund]
    before: [verify_identity, issue_refund]
`;

let traceNumber = 0x5e55_0000;

/**
 * One turn of a conversation: a trace whose root carries the session id (`session.id`,
 * OpenInference's convention) and a test case id (`refund`; `null`: none), with one
 * `execute_tool` span per call, starting `atMs` after the builder's epoch. `more` adds root
 * attributes (`spanscore.session.end`, …).
 */
export function sessionTurn(
  sessionId: string,
  calls: string[],
  atMs: number,
  more: Record<string, string | boolean> = {},
  testCaseId: string | null = 'refund',
): { traceId: string; spans: SpanInput[] } {
  const n = traceNumber++;
  const t = traceId(n);
  const root: SpanInput = {
    traceId: t,
    spanId: spanId(n, 1),
    name: 'invoke_agent support',
    startMs: atMs,
    endMs: atMs + 500,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'session.id': sessionId,
      ...(testCaseId !== null && { 'spanscore.test_case.id': testCaseId }),
      ...more,
    },
  };
  const tools = calls.map((name, i): SpanInput => ({
    traceId: t,
    spanId: spanId(n, i + 2),
    parentSpanId: root.spanId,
    name: `execute_tool ${name}`,
    startMs: atMs + 10 + i * 10,
    endMs: atMs + 15 + i * 10,
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name },
  }));
  return { traceId: t, spans: [root, ...tools] };
}

/**
 * A result sink (after the built-in recording ones) that counts, per session id, the session
 * passes it is given: how often a part was recorded.
 */
export function sessionPassCounter(): { sink: ResultSink; passes: Map<string, number> } {
  const passes = new Map<string, number>();
  const sink: ResultSink = {
    name: 'counting',
    write: run => {
      if (run.session) passes.set(run.session.id, (passes.get(run.session.id) ?? 0) + 1);
    },
  };
  return { sink, passes };
}

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { otlpRequest, spanId, traceId, type SpanInput } from './otlp-json-builder.js';

/** One agent run: its test case and the tools it called, in order. */
export interface RunInput {
  testCaseId: string;
  tools: string[];
}

let next = 700_000;

/**
 * Writes runs as one OTLP/JSON file of agent traces (OTel GenAI `execute_tool` spans under an
 * `invoke_agent` root tagged with the test case id), as `score` reads them. Returns the trace ids.
 */
export function writeRuns(dir: string, name: string, runs: readonly RunInput[]): string[] {
  const spans: SpanInput[] = [];
  const ids: string[] = [];
  for (const run of runs) {
    const n = next++;
    const t = traceId(n);
    ids.push(t);
    spans.push({
      traceId: t,
      spanId: spanId(n, 1),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 1000,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'spanscore.test_case.id': run.testCaseId,
      },
    });
    run.tools.forEach((tool, i) =>
      spans.push({
        traceId: t,
        spanId: spanId(n, i + 2),
        parentSpanId: spanId(n, 1),
        name: `execute_tool ${tool}`,
        startMs: 10 + i * 10,
        endMs: 15 + i * 10,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool,
          'gen_ai.tool.call.id': `call_${i}`,
        },
      }),
    );
  }
  writeFileSync(join(dir, name), JSON.stringify(otlpRequest(spans)));
  return ids;
}

/** `count` runs of one test case, the first `passing` of them calling `good`, the rest `bad`. */
export function repeated(
  testCaseId: string,
  count: number,
  passing: number,
  good: string[],
  bad: string[],
): RunInput[] {
  return Array.from({ length: count }, (_, i) => ({ testCaseId, tools: i < passing ? good : bad }));
}

import { gzipSync } from 'node:zlib';
import { otlpRequest, spanId, traceId, type SpanInput } from './otlp-json-builder.js';

/**
 * The spans of a hostile agent trace: a root and `calls` failing OTel GenAI `execute_tool` spans,
 * each tool named by `nameChars` characters (`t<call>_xxx…`, distinct) and failed with a
 * 1,000-character error. Small once gzipped (about 18 bytes a call), large everywhere a result
 * repeats its tool names and errors.
 */
export function longFailingTrace(n: number, calls: number, nameChars: number): SpanInput[] {
  const t = traceId(n);
  const spans: SpanInput[] = [
    { traceId: t, spanId: spanId(n, 1), name: 'invoke_agent', startMs: 0, endMs: 100 },
  ];
  for (let i = 0; i < calls; i++)
    spans.push({
      traceId: t,
      spanId: spanId(n, i + 2),
      parentSpanId: spanId(n, 1),
      name: 'execute_tool',
      startMs: 1,
      endMs: 2,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': longToolName(i, nameChars),
        'gen_ai.tool.call.id': `c${i}`,
      },
      status: { code: 2, message: `e${n}`.padEnd(1000, 'e') },
    });
  return spans;
}

/** The name of call `i` of {@link longFailingTrace}. */
export function longToolName(i: number, nameChars: number): string {
  return `t${i}_`.padEnd(nameChars, 'x');
}

/** `spans` as a gzip OTLP/JSON body (send with `content-encoding: gzip`). */
export function gzipRequest(spans: SpanInput[]): Buffer {
  return gzipSync(JSON.stringify(otlpRequest(spans)));
}

import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { normalizeTrace, type NormalizedTrace } from '../../src/normalize/normalize-trace.js';
import type { AttrInput, SpanInput } from './otlp-json-builder.js';
import { otlpRequest, spanId, traceId } from './otlp-json-builder.js';

/** A tool call for {@link agentTrace}: a name, or a name with arguments, result and status. */
export type CallInput = string | { name: string; args?: unknown; result?: unknown; error?: string };

let next = 1000;

/**
 * A one-agent trace whose tool calls are OTel GenAI `execute_tool` spans, run through the real
 * decoder and normalizer. `answer` becomes the agent's final output and last assistant message.
 */
export function agentTrace(
  calls: CallInput[],
  options: { testCaseId?: string; user?: string; answer?: string; assistant?: string[] } = {},
): NormalizedTrace {
  const n = next++;
  const t = traceId(n);
  const rootAttrs: Record<string, AttrInput> = { 'gen_ai.operation.name': 'invoke_agent' };
  if (options.testCaseId) rootAttrs['spanscore.test_case.id'] = options.testCaseId;
  if (options.user)
    rootAttrs['gen_ai.input.messages'] = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: options.user }] },
    ]);
  if (options.answer)
    rootAttrs['gen_ai.output.messages'] = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content: options.answer }] },
    ]);
  const spans: SpanInput[] = [
    {
      traceId: t,
      spanId: spanId(n, 1),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 10_000,
      attributes: rootAttrs,
    },
  ];
  calls.forEach((c, i) => {
    const call = typeof c === 'string' ? { name: c } : c;
    const attributes: Record<string, AttrInput> = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': `call_${i}`,
    };
    if (call.args !== undefined)
      attributes['gen_ai.tool.call.arguments'] = JSON.stringify(call.args);
    if (call.result !== undefined)
      attributes['gen_ai.tool.call.result'] =
        typeof call.result === 'string' ? call.result : JSON.stringify(call.result);
    spans.push({
      traceId: t,
      spanId: spanId(n, i + 2),
      parentSpanId: spanId(n, 1),
      name: `execute_tool ${call.name}`,
      startMs: 10 + i * 10,
      endMs: 15 + i * 10,
      attributes,
      ...(call.error && { status: { code: 2, message: call.error } }),
    });
  });
  (options.assistant ?? []).forEach((text, i) => {
    spans.push({
      traceId: t,
      spanId: spanId(n, 500 + i),
      parentSpanId: spanId(n, 1),
      name: 'chat m',
      startMs: 5 + i * 10,
      endMs: 6 + i * 10,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: text }] },
        ]),
      },
    });
  });
  return normalizeTrace(t, decodeOtlpJson(otlpRequest(spans)).spans);
}

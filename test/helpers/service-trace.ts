import { randomBytes } from 'node:crypto';
import type { SpanInput } from './otlp-json-builder.js';

/**
 * One agent run of a service (and `service.version`, when given): a root span, a chat span that
 * offers `offered` (when given: `gen_ai.tool.definitions`, OpenAI's function shape), and one
 * `execute_tool` span per call with its arguments. A fresh random trace id unless `traceId` says.
 */
export function serviceTraceSpans(options: {
  service: string;
  version?: string;
  calls: Array<{ name: string; args: unknown }>;
  offered?: Array<{ name: string; parameters?: unknown }>;
  traceId?: string;
}): { traceId: string; spans: SpanInput[] } {
  const traceId = options.traceId ?? randomBytes(16).toString('hex');
  const id = (n: number) => n.toString(16).padStart(16, '0').replace(/^0/, 'b');
  const common = {
    traceId,
    service: options.service,
    ...(options.version && { resource: { 'service.version': options.version } }),
  };
  const spans: SpanInput[] = [
    {
      ...common,
      spanId: id(1),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 1000,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    },
  ];
  if (options.offered)
    spans.push({
      ...common,
      spanId: id(2),
      parentSpanId: id(1),
      name: 'chat m',
      startMs: 1,
      endMs: 2,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.tool.definitions': JSON.stringify(
          options.offered.map(o => ({ type: 'function', function: o })),
        ),
      },
    });
  options.calls.forEach((call, i) =>
    spans.push({
      ...common,
      spanId: id(10 + i),
      parentSpanId: id(1),
      name: `execute_tool ${call.name}`,
      startMs: 10 + i * 10,
      endMs: 15 + i * 10,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.name,
        'gen_ai.tool.call.id': `call_${i}`,
        'gen_ai.tool.call.arguments': JSON.stringify(call.args),
      },
    }),
  );
  return { traceId, spans };
}

import { otlpRequest, spanId, traceId, type SpanInput } from './otlp-json-builder.js';
import { waitFor } from './redis.js';

let next = 0x9000 + Math.floor(Math.random() * 0x1000) * 16;

/** A tool call of {@link sendFailingTrace}: its tool and, when it failed, its error text. */
export interface FailingCall {
  tool: string;
  error?: string;
}

/**
 * Sends one agent trace of `calls` (OTel GenAI `execute_tool` spans, a failed one with status
 * ERROR and its message) to a running service, and waits until it has a run record. Returns its
 * trace id.
 */
export async function sendFailingTrace(
  origin: string,
  calls: FailingCall[],
  resource: { service?: string; version?: string } = {},
): Promise<string> {
  const n = next++;
  const t = traceId(n);
  const common = {
    traceId: t,
    service: resource.service ?? 'shop-agent',
    ...(resource.version && { resource: { 'service.version': resource.version } }),
  };
  const spans: SpanInput[] = [
    {
      ...common,
      spanId: spanId(n, 1),
      name: 'invoke_agent shop',
      startMs: 0,
      endMs: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'shop' },
    },
    ...calls.map((call, i): SpanInput => ({
      ...common,
      spanId: spanId(n, i + 2),
      parentSpanId: spanId(n, 1),
      name: `execute_tool ${call.tool}`,
      startMs: 10 + i * 10,
      endMs: 15 + i * 10,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.tool,
        'gen_ai.tool.call.id': `call_${i}`,
      },
      ...(call.error !== undefined && { status: { code: 2, message: call.error } }),
    })),
  ];
  const response = await fetch(`${origin}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(otlpRequest(spans)),
  });
  if (!response.ok) throw new Error(`send: HTTP ${response.status}`);
  await waitFor(async () => {
    const record = await fetch(`${origin}/api/v1/traces/${t}`);
    return record.ok && ((await record.json()) as { state: string }).state === 'scored';
  }, `trace ${t} scored`);
  return t;
}

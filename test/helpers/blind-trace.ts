import { otlpRequest, spanId, traceId, type SpanInput } from './otlp-json-builder.js';

/**
 * Hand-built (no capture yet): the shape Traceloop's LlamaIndex TS instrumentation is reported to
 * give a tool-calling agent (issue 28): chat spans whose assistant text is empty and whose tool
 * results come back as user messages, and no tool name anywhere. The test case id sits on the
 * first chat span, not on the root.
 */
export function blindAgentTrace(n: number, testCaseId: string): { traceId: string; body: unknown } {
  const t = traceId(n);
  const chat = (i: number, messages: unknown[]): SpanInput => ({
    traceId: t,
    spanId: spanId(n, i + 2),
    parentSpanId: spanId(n, 1),
    name: 'llamaindex.openai.chat',
    startMs: 10 + i * 100,
    endMs: 90 + i * 100,
    service: 'llamaindex-agent',
    attributes: {
      'llm.request.type': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.prompt.0.role': 'user',
      'gen_ai.prompt.0.content': JSON.stringify(messages),
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': '',
      ...(i === 0 && { 'spanscore.test_case.id': testCaseId }),
    },
  });
  const spans: SpanInput[] = [
    {
      traceId: t,
      spanId: spanId(n, 1),
      name: 'agent.run',
      startMs: 0,
      endMs: 400,
      service: 'llamaindex-agent',
      attributes: { 'traceloop.span.kind': 'workflow' },
    },
    chat(0, ['What is the weather in Paris?']),
    chat(1, ['{"city":"Paris","sky":"sunny"}']),
  ];
  return { traceId: t, body: otlpRequest(spans) };
}

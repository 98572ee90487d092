import { context, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';

/** A tracer provider whose finished spans can be read back (and cleared between tests). */
export function recordingProvider(service = 'sdk-test'): {
  provider: BasicTracerProvider;
  spans: () => ReadableSpan[];
  reset: () => void;
} {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { provider, spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset() };
}

/** hrTime `[seconds, nanos]` to a bigint of nanoseconds. */
export function hrToNanos([s, ns]: [number, number]): bigint {
  return BigInt(s) * 1_000_000_000n + BigInt(ns);
}

/**
 * An agent run made by the real OTel SDK: a root `rootName` span and one `execute_tool` child
 * per tool, all carrying the test case id (as `traced()` spans inside `withTestCase` do). With `withRoot: false` the root is left out (a trace whose
 * root never arrives).
 */
export function sdkAgentTrace(
  testCaseId: string,
  tools: readonly string[],
  options: { rootName?: string; service?: string; withRoot?: boolean } = {},
): ReadableSpan[] {
  const { provider, spans } = recordingProvider(options.service ?? 'agent-under-test');
  const tracer = provider.getTracer('agent');
  const root = tracer.startSpan(options.rootName ?? 'invoke_agent', {
    attributes: { 'spanscore.test_case.id': testCaseId },
  });
  const parent = trace.setSpan(context.active(), root);
  for (const tool of tools) {
    tracer
      .startSpan(
        `execute_tool ${tool}`,
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': tool,
            'spanscore.test_case.id': testCaseId,
          },
        },
        parent,
      )
      .end();
  }
  root.end();
  return options.withRoot === false
    ? spans().filter(s => s.name !== (options.rootName ?? 'invoke_agent'))
    : spans();
}

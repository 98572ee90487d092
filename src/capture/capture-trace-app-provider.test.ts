import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureTrace } from './capture-trace.js';
import { traced } from './traced.js';

// This file runs in its own process (vitest's forks pool), so the application's provider
// registered here is the first and only global one, as in an app that sets up OpenTelemetry.
const appExporter = new InMemorySpanExporter();
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appExporter)] }),
  );
});

const lookup = traced('lookup', (id: number) => ({ found: id }));

describe('captureTrace next to the application’s own tracer provider', () => {
  it('sends spans inside a capture to the capture only, and spans outside to the application', async () => {
    lookup(1);
    const run = await captureTrace(() => {
      // A library calling trace.getTracer per operation, as the Vercel AI SDK does.
      trace.getTracer('app').startActiveSpan('app.work', span => {
        lookup(2);
        span.end();
      });
    });
    lookup(3);
    trace.getTracer('app').startSpan('app.after').end();

    expect(run.toolSequence.map(c => c.result)).toEqual([{ found: 2 }]);
    expect(run.spans.map(s => s.name).sort()).toEqual([
      'app.work',
      'capture_trace',
      'execute_tool lookup',
    ]);
    const appSpans = appExporter.getFinishedSpans();
    expect(appSpans.map(s => s.name)).toEqual([
      'execute_tool lookup',
      'execute_tool lookup',
      'app.after',
    ]);
    // Outside a capture traced() keeps its opt-in default: no arguments recorded.
    expect(appSpans.map(s => s.attributes['gen_ai.tool.call.arguments'])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('a tracer obtained once, after the first capture (as instrumentations cache theirs)', () => {
  it('routes each span by the context it starts in', async () => {
    const cached = trace.getTracer('cached-instrumentation');
    appExporter.reset();
    const run = await captureTrace(() => cached.startSpan('inside').end());
    cached.startSpan('outside').end();
    expect(run.spans.map(s => s.name).sort()).toEqual(['capture_trace', 'inside']);
    expect(appExporter.getFinishedSpans().map(s => s.name)).toEqual(['outside']);
  });
});

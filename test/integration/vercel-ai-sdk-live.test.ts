import { join } from 'node:path';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load-config.js';
import type { EvaluationSpan } from '../../src/emit/score-to-span.js';
import type { TraceResult } from '../../src/score/trace-run.js';
import { startService } from '../../src/server/start-service.js';
import { waitFor } from '../helpers/redis.js';
import { weatherMockModel } from '../helpers/weather-mock-model.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('live pipeline with the real Vercel AI SDK', () => {
  it('scores generateText runs exported over OTLP by their testCaseId metadata', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    closers.push(async () => void context.disable());
    const written: EvaluationSpan[] = [];
    const results: TraceResult[] = [];
    const config = await loadConfig({
      env: {},
      overrides: {
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 200,
        'export.logResults': false,
        suites: [join(ROOT, 'config/suites/weather-agent.yaml')],
      },
    });
    const service = await startService(
      config,
      { receiver: true, workers: true },
      {
        log: () => undefined,
        onResult: r => results.push(r),
        exporter: {
          export: s => (written.push(...s), Promise.resolve()),
          shutdown: () => Promise.resolve(),
        },
      },
    );
    closers.push(() => service.close());

    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'vercel-agent' }),
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: service.url! }))],
    });
    closers.push(() => provider.shutdown());
    const model = weatherMockModel('call_live_1');
    await generateText({
      model,
      prompt: 'What is the weather in Paris?',
      tools: {
        weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: ({ city }) => Promise.resolve({ city, sky: 'sunny' }),
        }),
      },
      stopWhen: stepCountIs(3),
      experimental_telemetry: {
        isEnabled: true,
        tracer: provider.getTracer('ai'),
        metadata: { testCaseId: 'weather-paris' },
      },
    });
    await provider.forceFlush();

    await waitFor(() => results.length === 1, 'the Vercel AI SDK trace to be scored');
    const [result] = results;
    expect(result!.testCaseId).toBe('weather-paris');
    expect(result!.trace.toolsUsed).toEqual(['weather']);
    expect(result!.trace.toolSequence[0]).toMatchObject({
      callId: 'call_live_1',
      arguments: { city: 'Paris' },
      result: { city: 'Paris', sky: 'sunny' },
      convention: 'vercel-ai-sdk',
    });
    expect(
      Object.fromEntries(
        result!.outcomes.map(o => [
          o.scorer,
          o.result.status === 'scored' ? o.result.label : o.result.status,
        ]),
      ),
    ).toEqual({
      tool_call_accuracy: 'pass',
      tool_correctness: 'pass',
      tool_trajectory: 'pass',
      contains: 'pass',
      no_tool_errors: 'pass',
    });
    expect(written.map(s => s.parentSpanId)).toEqual(new Array(5).fill(result!.trace.root!.spanId));
  });
});

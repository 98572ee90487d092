import { trace as otelTrace } from '@opentelemetry/api';
import { logs } from '@opentelemetry/api-logs';
import { generateText, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { captureTrace } from './capture-trace.js';
import { traced } from './traced.js';
import { weatherMockModel } from '../../test/helpers/weather-mock-model.js';

const tick = (ms = 1): Promise<void> => new Promise(resolve => setTimeout(resolve, ms));

const searchFlights = traced('search_flights', async (q: { from: string; to: string }) => {
  await tick();
  return [{ flight: 'AF1', to: q.to }];
});
const bookFlight = traced('bookFlight', async (flight: string) => {
  await tick();
  return { booked: flight };
});
const failing = traced('charge_card', () => {
  throw new Error('card declined');
});

async function travelAgent(to: string): Promise<string> {
  const [first] = await searchFlights({ from: 'LHR', to });
  const booking = await bookFlight(first!.flight);
  return `booked ${booking.booked}`;
}

/**
 * A model call as the OpenTelemetry OpenAI instrumentation records it: a `chat` span, and the
 * messages as log records emitted in its context, through a logger it took from the API when it
 * was constructed (before any capture). `calls` are the model's tool calls.
 */
const instrumentationLogger = logs.getLogger('@opentelemetry/instrumentation-openai', '0.21.0');
async function chatAsTheOtelInstrumentation(
  calls: Array<{ id: string; name: string; arguments: string }>,
): Promise<void> {
  const tracer = otelTrace.getTracer('@opentelemetry/instrumentation-openai');
  await tracer.startActiveSpan('chat gpt-4o', { kind: 2 }, async span => {
    span.setAttributes({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' });
    await tick();
    instrumentationLogger.emit({
      eventName: 'gen_ai.choice',
      body: {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          tool_calls: calls.map(c => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: c.arguments },
          })),
        },
      },
    });
    // Not a GenAI event: not part of the capture.
    instrumentationLogger.emit({ body: 'request done', severityText: 'DEBUG' });
    span.end();
  });
}

describe('captureTrace', () => {
  it('captures the tool calls an instrumentation writes as GenAI log records, each capture its own', async () => {
    const [paris, lisbon] = await Promise.all([
      captureTrace(() =>
        chatAsTheOtelInstrumentation([
          { id: 'call_p', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ]),
      ),
      captureTrace(() =>
        chatAsTheOtelInstrumentation([
          { id: 'call_l', name: 'get_weather', arguments: '{"city":"Lisbon"}' },
          { id: 'call_f', name: 'search_flights', arguments: '{"to":"LIS"}' },
        ]),
      ),
    ]);
    expect(paris.toolSequence.map(c => [c.name, c.callId, c.arguments, c.signal])).toEqual([
      ['get_weather', 'call_p', { city: 'Paris' }, 'logs'],
    ]);
    expect(lisbon.toolsUsed).toEqual(['get_weather', 'search_flights']);
    // The records became events of the chat span, not spans of their own.
    expect(paris.spans.map(s => s.name).sort()).toEqual(['capture_trace', 'chat gpt-4o']);
    expect(paris.spans.find(s => s.name === 'chat gpt-4o')!.events.map(e => e.name)).toEqual([
      'gen_ai.choice',
    ]);
  });

  it('returns the tool sequence with arguments and results, the tools used, the spans and the result', async () => {
    const run = await captureTrace(() => travelAgent('CDG'));
    expect(run.result).toBe('booked AF1');
    expect(run.toolNames).toEqual(['search_flights', 'bookFlight']);
    expect(run.toolsUsed).toEqual(['search_flights', 'bookFlight']);
    expect(run.toolSequence.map(c => [c.canonicalName, c.arguments, c.result])).toEqual([
      ['search_flights', { from: 'LHR', to: 'CDG' }, [{ flight: 'AF1', to: 'CDG' }]],
      ['book_flight', 'AF1', { booked: 'AF1' }],
    ]);
    // One trace under the capture's root span.
    expect(run.root?.name).toBe('capture_trace');
    expect(new Set(run.spans.map(s => s.traceId))).toEqual(new Set([run.traceId]));
    expect(run.spans.filter(s => s.parentSpanId === run.root!.spanId)).toHaveLength(2);
    expect(run.serviceName).toBe('agent-under-test');
  });

  it('sets the test case id on the root and on every traced() span', async () => {
    const run = await captureTrace(() => travelAgent('JFK'), {
      testCaseId: 'tc-booking',
      name: 'invoke_agent travel',
      serviceName: 'travel-agent',
    });
    expect(run.testCaseId).toBe('tc-booking');
    expect(run.root?.name).toBe('invoke_agent travel');
    expect(run.spans.map(s => s.attributes[SPANSCORE_ATTRIBUTES.testCaseId])).toEqual([
      'tc-booking',
      'tc-booking',
      'tc-booking',
    ]);
    expect(run.serviceName).toBe('travel-agent');
  });

  it('records no arguments or results with captureContent: false, and a tool can opt out on its own', async () => {
    const quiet = await captureTrace(() => travelAgent('CDG'), { captureContent: false });
    expect(quiet.toolSequence.map(c => [c.arguments, c.result])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    const secret = traced('read_secret', (key: string) => `value of ${key}`, {
      captureArguments: false,
    });
    const run = await captureTrace(() => secret('db'));
    expect(run.toolSequence[0]).toMatchObject({ arguments: undefined, result: 'value of db' });
  });

  it('outside a capture, traced() still records nothing by default', async () => {
    const seen: unknown[] = [];
    const probe = traced('probe', () => seen.push(otelTrace.getActiveSpan()?.isRecording()));
    probe();
    expect(seen).toEqual([false]);
  });

  it('keeps concurrent captures apart, however their awaits interleave', async () => {
    const runs = await Promise.all(
      ['CDG', 'JFK', 'NRT', 'SYD'].map((to, i) =>
        captureTrace(async () => {
          await tick(4 - i);
          if (i % 2) return travelAgent(to);
          await searchFlights({ from: 'LHR', to });
          return 'searched only';
        }),
      ),
    );
    expect(runs.map(r => [r.toolNames, r.toolSequence[0]!.arguments])).toEqual([
      [['search_flights'], { from: 'LHR', to: 'CDG' }],
      [['search_flights', 'bookFlight'], { from: 'LHR', to: 'JFK' }],
      [['search_flights'], { from: 'LHR', to: 'NRT' }],
      [['search_flights', 'bookFlight'], { from: 'LHR', to: 'SYD' }],
    ]);
    expect(new Set(runs.map(r => r.traceId)).size).toBe(4);
  });

  it.concurrent('isolates it.concurrent tests (first)', async ({ expect }) => {
    const run = await captureTrace(async () => {
      await tick(5);
      return searchFlights({ from: 'A', to: 'B' });
    });
    expect(run.toolNames).toEqual(['search_flights']);
  });

  it.concurrent('isolates it.concurrent tests (second)', async ({ expect }) => {
    const run = await captureTrace(async () => {
      await bookFlight('X1');
      await tick(5);
      return bookFlight('X2');
    });
    expect(run.toolNames).toEqual(['bookFlight', 'bookFlight']);
  });

  it('records a failed tool as an error call, and rethrows what the function throws', async () => {
    const run = await captureTrace(() => {
      try {
        failing();
      } catch {
        return 'recovered';
      }
      return 'unreachable';
    });
    expect(run.toolSequence).toMatchObject([
      { name: 'charge_card', status: 'error', error: 'card declined' },
    ]);
    const boom = new Error('agent crashed');
    await expect(
      captureTrace(async () => {
        await searchFlights({ from: 'A', to: 'B' });
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('rethrows a thrown value with no string form as it was', async () => {
    const bare = Object.create(null) as object;
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what is tested
    await expect(captureTrace(() => Promise.reject(bare))).rejects.toBe(bare);
  });

  it('applies aliases when normalizing', async () => {
    const run = await captureTrace(() => bookFlight('AF9'), {
      aliases: { book_flight: 'reserve' },
    });
    expect(run.toolSequence[0]!.canonicalName).toBe('reserve');
    expect([...run.aliases]).toEqual([['book_flight', 'reserve']]);
  });

  it('refuses what is not a function, and an empty test case id', async () => {
    await expect(captureTrace(42 as never)).rejects.toThrow(
      'captureTrace: expected a function, got number',
    );
    await expect(captureTrace(() => 1, { testCaseId: '' })).rejects.toThrow(
      'testCaseId must be a non-empty string',
    );
  });

  it('captures the spans of an instrumented framework: the Vercel AI SDK with telemetry on', async () => {
    const model = weatherMockModel('call_1');
    const run = await captureTrace(() =>
      generateText({
        model,
        prompt: 'Weather in Paris?',
        tools: {
          weather: tool({
            description: 'Current weather',
            inputSchema: z.object({ city: z.string() }),
            execute: ({ city }) => Promise.resolve({ city, sky: 'sunny' }),
          }),
        },
        stopWhen: stepCountIs(3),
        experimental_telemetry: { isEnabled: true },
      }),
    );
    expect(run.result.text).toBe('Sunny in Paris.');
    expect(run.toolSequence).toMatchObject([
      {
        name: 'weather',
        callId: 'call_1',
        arguments: { city: 'Paris' },
        result: { city: 'Paris', sky: 'sunny' },
        convention: 'vercel-ai-sdk',
      },
    ]);
    expect(run.spans.some(s => s.scopeName === 'ai')).toBe(true);
    expect(run.spans.every(s => s.traceId === run.traceId)).toBe(true);
    expect(
      run.spans.filter(s => s.name === 'ai.toolCall').map(s => s.attributes['ai.toolCall.name']),
    ).toEqual(['weather']);
  });
});

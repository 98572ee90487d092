import { context, SpanStatusCode, trace as otelTrace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordingProvider } from '../../test/helpers/sdk-spans.js';
import { traced } from './traced.js';
import { withTestCase } from './with-test-case.js';

const { provider, spans, reset } = recordingProvider('capture-test');

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otelTrace.setGlobalTracerProvider(provider);
});
beforeEach(() => reset());

describe('traced', () => {
  it('makes an execute_tool span per call, with the GenAI attributes, and returns sync values synchronously', () => {
    const add = traced('add', (a: number, b: number) => a + b, { description: 'Adds two numbers' });
    const out = add(2, 3);
    expect(out).toBe(5);
    const [span] = spans();
    expect(span!.name).toBe('execute_tool add');
    expect(span!.instrumentationScope.name).toBe('spanscore');
    expect(span!.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Adds two numbers',
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('keeps async functions async, ends the span when the promise settles, records the result when asked', async () => {
    const fetchWeather = traced('get_weather', async (city: string) => ({ city, temp: 21 }), {
      captureArguments: true,
      captureResult: true,
    });
    const pending = fetchWeather('Paris');
    expect(pending).toBeInstanceOf(Promise);
    expect(spans()).toHaveLength(0);
    expect(await pending).toEqual({ city: 'Paris', temp: 21 });
    expect(spans()[0]!.attributes).toMatchObject({
      'gen_ai.tool.call.arguments': 'Paris',
      'gen_ai.tool.call.result': '{"city":"Paris","temp":21}',
    });
  });

  it('records nothing of arguments or results unless enabled (opt-in, as the conventions say)', async () => {
    await traced('lookup', async (id: string) => `secret-${id}`)('x');
    expect(Object.keys(spans()[0]!.attributes)).not.toContain('gen_ai.tool.call.arguments');
    expect(Object.keys(spans()[0]!.attributes)).not.toContain('gen_ai.tool.call.result');
  });

  it('redacts secret-looking keys at any depth and caps the size', () => {
    const call = traced('login', (_args: unknown) => 'ok', {
      captureArguments: true,
      redactKeys: ['otp'],
    });
    call({
      user: 'ada',
      password: 'hunter2',
      otp: '123456',
      nested: { apiKey: 'k', Authorization: 'Bearer x', keep: 1 },
    });
    expect(JSON.parse(spans()[0]!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({
      user: 'ada',
      password: '[REDACTED]',
      otp: '[REDACTED]',
      nested: { apiKey: '[REDACTED]', Authorization: '[REDACTED]', keep: 1 },
    });
    reset();
    traced('echo', (_args: unknown) => 'ok', { captureArguments: true, maxAttributeLength: 120 })({
      text: 'x'.repeat(1000),
    });
    const recorded = spans()[0]!.attributes['gen_ai.tool.call.arguments'] as string;
    expect(recorded).toMatch(/^\{"text":"x{111}…\[cut at 120 characters\]$/);
  });

  it('survives circular and exotic arguments', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    traced('odd', (..._a: unknown[]) => 1, { captureArguments: true })(
      loop,
      10n,
      new Map([['k', 1]]),
      () => 1,
    );
    expect(JSON.parse(spans()[0]!.attributes['gen_ai.tool.call.arguments'] as string)).toEqual([
      { name: 'loop', self: '[circular]' },
      '10',
      { k: 1 },
      null,
    ]);
  });

  it('marks a throw ERROR with error.type and the exception, and rethrows the same error (sync and async)', async () => {
    class QuotaError extends Error {
      override name = 'QuotaError';
    }
    const boom = new QuotaError('over quota');
    expect(() =>
      traced('sync_fail', () => {
        throw boom;
      })(),
    ).toThrow(boom);
    await expect(traced('async_fail', () => Promise.reject(boom))()).rejects.toBe(boom);
    for (const span of spans()) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'over quota' });
      expect(span.attributes['error.type']).toBe('QuotaError');
      expect(span.events[0]!.name).toBe('exception');
    }
    expect(spans()).toHaveLength(2);
  });

  it('rethrows a thrown value with no string form as it was, and still ends its span ERROR', async () => {
    // String() of these throws: recording the failure must not replace what the caller gets.
    const bare = Object.create(null) as object;
    const nameThrows = new Error('bad name');
    Object.defineProperty(nameThrows, 'name', {
      get() {
        throw new Error('name getter');
      },
    });
    for (const thrown of [bare, nameThrows]) {
      let caught: unknown;
      try {
        traced('sync_odd', () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- what is tested
          throw thrown;
        })();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBe(thrown);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what is tested
      await expect(traced('async_odd', () => Promise.reject(thrown))()).rejects.toBe(thrown);
      let inCase: unknown;
      try {
        withTestCase('odd', () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- what is tested
          throw thrown;
        });
      } catch (error) {
        inCase = error;
      }
      expect(inCase).toBe(thrown);
    }
    expect(spans()).toHaveLength(6);
    for (const span of spans()) {
      expect(span.ended).toBe(true);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
    }
    expect(spans()[0]!.status.message).toBe('a thrown value that cannot be read');
    expect(spans()[3]!.attributes['error.type']).toBe('Error');
  });

  it('returns what the tool returned, and calls it, whatever its arguments and result hold', async () => {
    const odd = {
      get x(): never {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what is tested
        throw undefined;
      },
    };
    let calls = 0;
    const echo = traced('echo', (a: unknown) => (calls++, a), {
      captureArguments: true,
      captureResult: true,
    });
    expect(echo(odd)).toBe(odd);
    await expect(
      traced('echo_async', async (a: unknown) => a, { captureResult: true })(odd),
    ).resolves.toBe(odd);
    expect(calls).toBe(1);
    expect(spans()).toHaveLength(2);
    expect(spans()[0]!.attributes['gen_ai.tool.call.arguments']).toBe(
      '{"x":"[unserializable: undefined]"}',
    );
    expect(spans()[1]!.attributes['gen_ai.tool.call.result']).toBe(
      '{"x":"[unserializable: undefined]"}',
    );
  });

  it('settles as a thenable that is no promise settles, calling its then once', async () => {
    let thens = 0;
    // A thenable need not return anything from then (await ignores it); knex and mongoose
    // queries are thenables that run once per then.
    const lazy = {
      then(resolve: (value: number) => void): void {
        thens++;
        resolve(5);
      },
    };
    const run = traced('lazy', () => lazy, { captureResult: true });
    expect(await run()).toBe(5);
    expect(thens).toBe(1);
    expect(spans()[0]!.attributes['gen_ai.tool.call.result']).toBe('5');
  });

  it('runs a tool whose argument or result throws on unknown properties, and returns its result', () => {
    const strict = new Proxy(
      {},
      {
        get(_target, key): never {
          throw new Error(`no property ${String(key)}`);
        },
      },
    );
    let calls = 0;
    const run = traced('strict', (a: unknown) => (calls++, a));
    expect(run(strict)).toBe(strict);
    expect(calls).toBe(1);
    expect(spans()).toHaveLength(1);
    expect(spans()[0]!.ended).toBe(true);
  });

  it('preserves `this`, the function name and its length', () => {
    const counter = {
      n: 41,
      next: traced('next', function (this: { n: number }, step: number) {
        return (this.n += step);
      }),
    };
    expect(counter.next(1)).toBe(42);
    function namedTool(_a: number, _b: number): number {
      return 0;
    }
    const wrapped = traced('tool', namedTool);
    expect(wrapped.name).toBe('namedTool');
    expect(wrapped.length).toBe(2);
  });

  it('runs the function inside its span: spans it starts are children, and it is a child of the caller', async () => {
    const inner = traced('inner', async () => 'x');
    const outer = traced('outer', async () => inner());
    await otelTrace.getTracer('app').startActiveSpan('agent', async agent => {
      await outer();
      agent.end();
    });
    const byName = Object.fromEntries(spans().map(s => [s.name, s]));
    expect(byName['execute_tool inner']!.parentSpanContext?.spanId).toBe(
      byName['execute_tool outer']!.spanContext().spanId,
    );
    expect(byName['execute_tool outer']!.parentSpanContext?.spanId).toBe(
      byName.agent!.spanContext().spanId,
    );
    expect(new Set(spans().map(s => s.spanContext().traceId)).size).toBe(1);
  });

  it('takes gen_ai.tool.call.id from the Vercel AI SDK options argument, or from options.callId', async () => {
    await traced('weather', async (_input: { city: string }, _opts: { toolCallId: string }) => 1)(
      { city: 'Rome' },
      { toolCallId: 'call_abc' },
    );
    traced('custom', (x: { id: string }) => x, { callId: ([x]) => (x as { id: string }).id })({
      id: 'c-9',
    });
    expect(spans().map(s => s.attributes['gen_ai.tool.call.id'])).toEqual(['call_abc', 'c-9']);
  });

  it('ties tool spans to the test case set by withTestCase, in one trace rooted at the test case span', async () => {
    const search = traced('search', async (q: string) => q);
    const result = await withTestCase('search-case', async () => search('cats'));
    expect(result).toBe('cats');
    const [tool, root] = spans();
    expect(root!.name).toBe('test_case search-case');
    expect(root!.attributes['spanscore.test_case.id']).toBe('search-case');
    expect(tool!.attributes['spanscore.test_case.id']).toBe('search-case');
    expect(tool!.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
    // Outside the scope, no test case.
    await search('dogs');
    expect(spans()[2]!.attributes['spanscore.test_case.id']).toBeUndefined();
  });

  it('withTestCase marks the test case span ERROR when the run throws, and rethrows', async () => {
    await expect(
      withTestCase('broken', () => Promise.reject(new Error('agent crashed'))),
    ).rejects.toThrow('agent crashed');
    expect(spans()[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'agent crashed' });
    expect(() => withTestCase('', () => 1)).toThrow(/non-empty string/);
  });
});

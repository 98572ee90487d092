import { context, SpanStatusCode, trace as otelTrace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import ts from 'typescript';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordingProvider } from '../../test/helpers/sdk-spans.js';
import { trace } from './trace-decorator.js';

const { provider, spans, reset } = recordingProvider('decorator-test');
beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  otelTrace.setGlobalTracerProvider(provider);
});
beforeEach(() => reset());

class WeatherTools {
  unit = 'C';

  @trace({ description: 'Current weather', captureArguments: true, captureResult: true })
  async getWeather(city: string): Promise<string> {
    return `${city}: 21°${this.unit}`;
  }

  @trace({ name: 'convert_units' })
  convert(celsius: number): number {
    return (celsius * 9) / 5 + 32;
  }

  @trace()
  static ping(): string {
    return 'pong';
  }

  @trace()
  fail(): never {
    throw new RangeError('no such city');
  }
}

describe('@trace, TC39 standard decorators', () => {
  it('traces async and sync methods, keeping this and return values', async () => {
    const tools = new WeatherTools();
    expect(await tools.getWeather('Oslo')).toBe('Oslo: 21°C');
    expect(tools.convert(100)).toBe(212);
    expect(WeatherTools.ping()).toBe('pong');
    expect(spans().map(s => [s.name, s.attributes['gen_ai.tool.name']])).toEqual([
      ['execute_tool getWeather', 'getWeather'],
      ['execute_tool convert_units', 'convert_units'],
      ['execute_tool ping', 'ping'],
    ]);
    expect(spans()[0]!.attributes).toMatchObject({
      'gen_ai.tool.description': 'Current weather',
      'gen_ai.tool.call.arguments': 'Oslo',
      'gen_ai.tool.call.result': 'Oslo: 21°C',
    });
  });

  it('marks a throwing method ERROR and rethrows', () => {
    expect(() => new WeatherTools().fail()).toThrow(RangeError);
    expect(spans()[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no such city' });
    expect(spans()[0]!.attributes['error.type']).toBe('RangeError');
  });

  it('refuses to decorate a field', () => {
    expect(() =>
      trace()(
        (() => 1) as never,
        { kind: 'field', name: 'x' } as unknown as ClassMethodDecoratorContext,
      ),
    ).toThrow(/only decorate methods/);
  });
});

describe('@trace, legacy experimentalDecorators (as TypeScript emits them for NestJS-style code)', () => {
  it('traces methods decorated through __decorate', async () => {
    const source = `
      class Billing {
        rate = 2;
        @trace({ captureArguments: true })
        async charge(amount: number) { return amount * this.rate; }
        @trace()
        refund() { throw new Error('refunds disabled'); }
      }
      return Billing;`;
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: {
        experimentalDecorators: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.CommonJS,
      },
    });
    expect(outputText).toContain('__decorate');
    // Runs TypeScript's own legacy-decorator emit, which is what NestJS-style code executes.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const Billing = new Function('trace', outputText)(trace) as new () => {
      charge(n: number): Promise<number>;
      refund(): void;
    };
    const billing = new Billing();
    expect(await billing.charge(21)).toBe(42);
    expect(() => billing.refund()).toThrow('refunds disabled');
    expect(
      spans().map(s => [s.name, s.attributes['gen_ai.tool.call.arguments'] ?? null, s.status.code]),
    ).toEqual([
      ['execute_tool charge', '21', SpanStatusCode.UNSET],
      ['execute_tool refund', null, SpanStatusCode.ERROR],
    ]);
  });

  it('refuses a property without a function', () => {
    expect(() => trace()({}, 'x', { value: 42 })).toThrow(/x is not one/);
  });
});

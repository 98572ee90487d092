import { describe, expect, it } from 'vitest';
import { agentTrace, type CallInput } from '../../../test/helpers/trace-builder.js';
import type { ScoreResult } from '../score-result.js';
import type { TestCase } from '../test-case.js';
import { toolCallAccuracy } from './tool-call-accuracy.js';

const none = new Map<string, string>();
function score(
  calls: CallInput[],
  expectation: Partial<TestCase>,
  options: Record<string, unknown> = {},
): ScoreResult {
  const testCase: TestCase = { id: 't', scorers: [], ...expectation };
  return toolCallAccuracy.score({
    trace: agentTrace(calls),
    testCase,
    options: toolCallAccuracy.parseOptions(options),
    aliases: none,
  }) as ScoreResult;
}
const value = (r: ScoreResult): number | string => (r.status === 'scored' ? r.score : r.status);

describe("tool_call_accuracy: the seed documents' examples", () => {
  it('correct tool selection: weather-tool expected and called → 1', () => {
    const r = score([{ name: 'weather-tool', args: { location: 'New York' } }], {
      expectedTool: 'weather-tool',
    });
    expect(r).toMatchObject({
      status: 'scored',
      score: 1,
      label: 'pass',
      details: { correctToolCalled: true },
    });
  });
  it('strict mode: search-tool and weather-tool called → 0, because multiple tools were called', () => {
    const r = score(['search-tool', 'weather-tool'], {
      expectedTool: 'weather-tool',
      strictMode: true,
    });
    expect(r).toMatchObject({ score: 0, label: 'fail' });
    expect(r.status === 'scored' && r.reason).toMatch(/strict mode allows no other call/);
  });
  it('tool order, strict: auth-tool then fetch-tool → 1 (expectedTool is ignored)', () => {
    expect(
      value(
        score(['auth-tool', 'fetch-tool'], {
          expectedTool: 'auth-tool',
          expectedToolOrder: ['auth-tool', 'fetch-tool'],
          strictMode: true,
        }),
      ),
    ).toBe(1);
  });
  it('flexible order: auth-tool, log-tool, fetch-tool → 1 (extra tool allowed)', () => {
    expect(
      value(
        score(['auth-tool', 'log-tool', 'fetch-tool'], {
          expectedTool: 'auth-tool',
          expectedToolOrder: ['auth-tool', 'fetch-tool'],
          strictMode: false,
        }),
      ),
    ).toBe(1);
  });
  it('comparing both scorers: weather-tool expected, search-tool called → code scorer 0', () => {
    expect(
      value(
        score([{ name: 'search-tool', args: { query: 'weather' } }], {
          expectedTool: 'weather-tool',
          strictMode: false,
        }),
      ),
    ).toBe(0);
  });
  it('standard mode passes when the expected tool is called among others', () => {
    expect(value(score(['search-tool', 'weather-tool'], { expectedTool: 'search-tool' }))).toBe(1);
  });
  it('strict order with an extra tool fails', () => {
    expect(
      value(
        score(['step1-tool', 'extra', 'step2-tool', 'step3-tool'], {
          expectedToolOrder: ['step1-tool', 'step2-tool', 'step3-tool'],
          strictMode: true,
        }),
      ),
    ).toBe(0);
  });
});

describe('tool_call_accuracy: semantics', () => {
  it.each<[string, CallInput[], Partial<TestCase>, number | string]>([
    ['no calls → 0 even when the order is vacuous', [], { expectedTool: 'a' }, 0],
    ['no calls in order mode → 0', [], { expectedToolOrder: ['a'] }, 0],
    ['no expectation → skipped', ['a'], {}, 'skipped'],
    [
      'empty expectedToolOrder without expectedTool → skipped',
      ['a'],
      { expectedToolOrder: [] },
      'skipped',
    ],
    [
      'empty expectedToolOrder falls back to expectedTool',
      ['a'],
      { expectedToolOrder: [], expectedTool: 'a' },
      1,
    ],
    [
      'strict single: the same tool twice → 0',
      ['a', 'a'],
      { expectedTool: 'a', strictMode: true },
      0,
    ],
    [
      'strict order accepts repeats that are expected',
      ['a', 'a'],
      { expectedToolOrder: ['a', 'a'], strictMode: true },
      1,
    ],
    [
      'flexible: a valid subsequence after an early later-tool call → 1',
      ['b', 'a', 'b'],
      { expectedToolOrder: ['a', 'b'] },
      1,
    ],
    [
      'flexible: a repeated expected name can pass',
      ['a', 'b', 'a'],
      { expectedToolOrder: ['a', 'b', 'a'] },
      1,
    ],
    ['flexible: swapped → 0', ['b', 'a'], { expectedToolOrder: ['a', 'b'] }, 0],
    ['flexible: missing → 0', ['a', 'c'], { expectedToolOrder: ['a', 'b'] }, 0],
    [
      'names compare canonically by default',
      ['functions.getWeather'],
      { expectedTool: 'get-weather' },
      1,
    ],
  ])('%s', (_name, calls, expectation, expected) => {
    expect(value(score(calls, expectation))).toBe(expected);
  });

  it.each<[CallInput[], string[], number]>([
    [['b', 'a', 'b'], ['a', 'b'], 0],
    [['c', 'a', 'b', 'c'], ['a', 'b', 'c'], 0],
    [['a', 'a'], ['a', 'a'], 0],
    [['a', 'b', 'b'], ['a', 'b'], 1],
  ])(
    "orderMode mastra reproduces Mastra's first-occurrence check: %j vs %j → %i",
    (calls, order, expected) => {
      expect(value(score(calls, { expectedToolOrder: order }, { orderMode: 'mastra' }))).toBe(
        expected,
      );
    },
  );

  it('normalize: false compares raw names exactly, case-sensitive, as Mastra does', () => {
    expect(
      value(
        score(['functions.get_weather'], { expectedTool: 'get_weather' }, { normalize: false }),
      ),
    ).toBe(0);
    expect(
      value(score(['Get_Weather'], { expectedTool: 'get_weather' }, { normalize: false })),
    ).toBe(0);
    expect(
      value(score(['get_weather'], { expectedTool: 'get_weather' }, { normalize: false })),
    ).toBe(1);
  });

  it('takes expectations from the scorer options when there is no test case (production rules)', () => {
    const r = toolCallAccuracy.score({
      trace: agentTrace(['lookup']),
      testCase: undefined,
      options: toolCallAccuracy.parseOptions({ expectedTool: 'lookup' }),
      aliases: none,
    });
    expect(r).toMatchObject({ score: 1 });
  });

  it('refuses unknown or mistyped options with a message naming them', () => {
    expect(() => toolCallAccuracy.parseOptions({ ordermode: 'mastra' })).toThrow(
      'unknown option(s) "ordermode"',
    );
    expect(() => toolCallAccuracy.parseOptions({ orderMode: 'loose' })).toThrow(
      /option "orderMode"/,
    );
    expect(() => toolCallAccuracy.parseOptions({ threshold: 2 })).toThrow(/option "threshold"/);
  });
});

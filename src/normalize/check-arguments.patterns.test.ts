import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { checkArguments, CHECK_LIMITS, traceCheckBudget } from './check-arguments.js';
import { resetValidators, validatorStats, VALIDATOR_LIMITS } from './schema-validators.js';

/**
 * Patterns built to cost RE2 (re2js) time: linear in the text, but each character may touch every
 * instruction of the program, and a short pattern may compile to a large one. Each case counts
 * the RE2 instructions compiled and the instructions times characters matched (the work RE2 does),
 * never time.
 */

interface Work {
  compiled: number;
  matched: number;
}

/** The RE2 work `run` causes: instructions compiled, and instructions × (characters + 1) matched. */
function re2Work(run: () => void): Work {
  const work = { compiled: 0, matched: 0 };
  const compile = RE2JS.compile.bind(RE2JS);
  const proto = RE2JS.prototype as unknown as Record<
    'test' | 'matcher',
    (input: string) => unknown
  >;
  const { test, matcher } = proto;
  RE2JS.compile = (pattern: string, flags?: number) => {
    const re = compile(pattern, flags);
    work.compiled += re.programSize();
    return re;
  };
  const counted = (original: (input: string) => unknown) =>
    function (this: RE2JS, input: string) {
      work.matched += (input.length + 1) * this.programSize();
      return original.call(this, input);
    };
  proto.test = counted(test);
  proto.matcher = counted(matcher);
  try {
    run();
  } finally {
    RE2JS.compile = compile;
    proto.test = test;
    proto.matcher = matcher;
  }
  return work;
}

// A minute between calls: the compile rate never refuses, so the bounds are what is tested.
const clock = () => {
  let t = 0;
  return () => (t += 60_000);
};

// The most a call may match: its steps, each worth this many instructions × characters.
const MATCH_BOUND = CHECK_LIMITS.maxStepsPerCall * VALIDATOR_LIMITS.patternInstructionsPerStep;

beforeEach(() => resetValidators());
afterAll(() => resetValidators());

describe('checkArguments on hostile patterns', () => {
  it('refuses a 479-character pattern of 120,000 instructions before compiling it', () => {
    // Compiled, it took 270 ms, counted as one keyword of the compile budget.
    const pattern = Array.from({ length: 30 }, (_, i) => `(?:a|ab){1000}${i % 10}`).join('|');
    let result: unknown;
    const work = re2Work(() => {
      result = checkArguments(
        { type: 'object', properties: { s: { type: 'string', pattern } } },
        { s: 'ab' },
        traceCheckBudget(),
        { now: clock() },
      );
    });
    expect(result).toEqual({
      status: 'unchecked',
      reason: `its schema's patterns cost more than ${CHECK_LIMITS.maxPatternInstructions} regular-expression instructions to compile (Unicode tables and case folding counted), the bound`,
    });
    expect(work.compiled).toBe(0);
  });

  it('refuses 4,000 case-folded Unicode classes (4,002 instructions, 440 ms) before compiling', () => {
    let result: unknown;
    const work = re2Work(() => {
      result = checkArguments(
        { type: 'string', pattern: `(?i)${'[^\\pL]'.repeat(4_000)}` },
        'a',
        traceCheckBudget(),
        { now: clock() },
      );
    });
    expect(result).toMatchObject({
      status: 'unchecked',
      reason: expect.stringMatching(/instructions/),
    });
    expect(work.compiled).toBe(0);
  });

  it('refuses 2,400 case-folded wide ranges (11.3 s to compile) before compiling', () => {
    // RE2 folds each code point of a range one by one: 124,000 of `[B-\x{1E942}]`, each time.
    let result: unknown;
    const work = re2Work(() => {
      result = checkArguments(
        { type: 'string', pattern: `(?i)${'[B-\\x{1E942}]'.repeat(2_400)}` },
        'b',
        traceCheckBudget(),
        { now: clock() },
      );
    });
    expect(result).toMatchObject({ status: 'unchecked', reason: expect.stringMatching(/folding/) });
    expect(work.compiled).toBe(0);
  });

  it('checks typical patterns, Unicode classes in counted repeats too, several in one schema', () => {
    // RE2 builds a Unicode class's tables once per class written, not once per copy a count
    // makes: `^[\p{L}\p{N}_-]{1,64}$` (131 instructions) was read as 4,166, so five such fields
    // made a schema unchecked, and `^[\p{L}\p{N}\p{P}\p{Zs}]{1,500}$` alone was (32,506).
    const name = { type: 'string', pattern: '^[\\p{L}\\p{N}_-]{1,64}$' };
    const schema = {
      type: 'object',
      properties: {
        tool: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        first: name,
        last: name,
        city: name,
        user: name,
        display: name,
        text: { type: 'string', pattern: '^[\\p{L}\\p{N}\\p{P}\\p{Zs}]{1,500}$' },
        id: {
          type: 'string',
          pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
        },
        day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
        email: { type: 'string', pattern: '^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$' },
        version: {
          type: 'string',
          pattern:
            '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$',
        },
      },
    };
    const args = {
      tool: 'get_weather',
      first: 'José',
      last: 'Ørsted',
      city: 'København',
      user: 'jo_42',
      display: 'Zoë',
      text: 'Héllo, wörld!',
      id: '123e4567-e89b-12d3-a456-426614174000',
      day: '2026-12-01',
      email: 'someone.name@example.com',
      version: '1.2.3-rc.1+build.5',
    };
    const budget = traceCheckBudget();
    const options = { now: clock() };
    let verdicts: unknown[] = [];
    const work = re2Work(() => {
      verdicts = [
        checkArguments(schema, args, budget, options),
        checkArguments(schema, { ...args, first: 'a b', day: '1 Dec' }, budget, options),
      ];
    });
    expect(verdicts).toEqual([
      { status: 'valid' },
      {
        status: 'invalid',
        problems: [
          '/first: must match pattern "^[\\p{L}\\p{N}_-]{1,64}$"',
          '/day: must match pattern "^\\d{4}-\\d{2}-\\d{2}$"',
        ],
      },
    ]);
    // Compiled once each (the five name fields share one), a few thousand instructions in all.
    expect(work.compiled).toBeGreaterThan(1_000);
    expect(work.compiled).toBeLessThan(2_000);
  });

  it("charges patterns' size to the compile budgets: a trace's, and the process's rate", () => {
    // Distinct schemas of nine `[a-x]{1000}` alternatives (18,000 instructions, 30 ms to compile
    // each) were charged as their 5 object keys: 400 compiled in one trace, 3.45 s.
    const schema = (i: number) => ({
      type: 'object',
      properties: {
        s: {
          type: 'string',
          pattern: `${Array.from({ length: 9 }, (_, k) => `[a-${String.fromCharCode(98 + ((i + k) % 24))}]{1000}`).join('|')}|x${i}`,
        },
      },
    });
    const compiles = (run: () => void) => {
      const before = validatorStats.compiles;
      run();
      return validatorStats.compiles - before;
    };
    const budget = traceCheckBudget();
    const now = clock();
    const first = compiles(() => checkArguments(schema(0), { s: 'a' }, budget, { now }));
    expect(first).toBe(1);
    // 5 keys and 18,015 instructions, a keyword per 50 of them.
    expect(CHECK_LIMITS.maxCompiledKeywordsPerTrace - budget.compileKeywords).toBe(5 + 361);
    const inTrace = compiles(() => {
      for (let i = 1; i < 400; i++) checkArguments(schema(i), { s: 'a' }, budget, { now });
    });
    expect(first + inTrace).toBe(5);
    // The process's rate: a burst of 20,000 keywords, with no time passing, whatever the traces.
    resetValidators();
    const stillClock = () => 0;
    const inBurst = compiles(() => {
      for (let i = 0; i < 400; i++)
        checkArguments(schema(i), { s: 'a' }, traceCheckBudget(), { now: stillClock });
    });
    expect(inBurst).toBe(54);
  });

  it('stops matching a pattern of 1,003 instructions over long strings at the step bound', () => {
    // 25 strings of 10,000 characters (within the arguments' bounds): 250 million instructions ×
    // characters, 9 s, where the step count said 328.
    const schema = { type: 'array', items: { type: 'string', pattern: '[a-z]{1000}[^a-z]' } };
    const args = Array.from({ length: 25 }, () => 'a'.repeat(10_000));
    let result: unknown;
    const work = re2Work(() => {
      result = checkArguments(schema, args, traceCheckBudget(), { now: clock() });
    });
    expect(result).toEqual({
      status: 'unchecked',
      reason: `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
    });
    expect(work.compiled).toBeLessThan(2_000);
    expect(work.matched).toBeLessThanOrEqual(MATCH_BOUND);
  });

  it('stops 400 patternProperties over 4,900 keys at the step bound: each match is a step', () => {
    // Two million matches made in one subschema's application, counted as 4,903 steps (1 s).
    const patternProperties: Record<string, unknown> = {};
    for (let i = 0; i < 400; i++) patternProperties[`^k${i}x[a-z]*$`] = { type: 'number' };
    const args: Record<string, number> = {};
    for (let i = 0; i < 4_900; i++) args[`z${'q'.repeat(40)}${i}`] = 1;
    let result: unknown;
    const work = re2Work(() => {
      result = checkArguments({ type: 'object', patternProperties }, args, traceCheckBudget(), {
        now: clock(),
      });
    });
    expect(result).toMatchObject({ status: 'unchecked', reason: expect.stringMatching(/steps/) });
    expect(work.matched).toBeLessThanOrEqual(MATCH_BOUND);
  });

  it('still checks patterns of ordinary size: a valid and an invalid call', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' } },
      patternProperties: { '^x-': { type: 'string' } },
    };
    const budget = traceCheckBudget();
    const options = { now: clock() };
    expect(checkArguments(schema, { id: 'order_42', 'x-a': 'b' }, budget, options)).toEqual({
      status: 'valid',
    });
    expect(checkArguments(schema, { id: 'no spaces', 'x-a': 1 }, budget, options)).toEqual({
      status: 'invalid',
      problems: ['/id: must match pattern "^[a-zA-Z0-9_-]{1,64}$"', '/x-a: must be string'],
    });
    // Two calls of three strings each: a few steps a match, not the call's bound.
    expect(CHECK_LIMITS.maxStepsPerTrace - budget.steps).toBeLessThan(200);
  });
});

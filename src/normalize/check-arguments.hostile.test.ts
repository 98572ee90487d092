import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { anchorChainInData, refFanOut } from '../../test/helpers/tool-schema-traces.js';
import { checkArguments, CHECK_LIMITS, traceCheckBudget } from './check-arguments.js';
import {
  cachedValidatorBytes,
  resetValidators,
  takeCompileTokens,
  validatorStats,
  VALIDATOR_LIMITS,
} from './schema-validators.js';

/**
 * Schemas and arguments built to cost the validator memory or time, as any sender of a trace can
 * write them. Each case asserts the verdict and the work done (compiles, keywords compiled, steps,
 * bytes kept), never the time taken: the machines that run this are shared and noisy.
 */

const work = () => ({ ...validatorStats });
const clock = () => {
  let t = 0;
  // Each call a minute later: the compile rate never refuses, so budgets are what is tested.
  return () => (t += 60_000);
};

beforeEach(() => resetValidators());
// The next file in this worker starts from an empty cache and a full compile rate too.
afterAll(() => resetValidators());

describe('checkArguments on hostile schemas', () => {
  it('refuses a $ref fan-out past the bound before compiling anything', () => {
    // 400 refs to a 200-property definition: about 24 KB, which Ajv inlined into 48 MB of code.
    const before = work();
    const result = checkArguments(refFanOut(400, 200), { r0: { f0: 'a' } });
    expect(result).toEqual({
      status: 'unchecked',
      reason: `its schema has more than ${CHECK_LIMITS.maxRefs} $refs, the bound`,
    });
    expect(work().compiles - before.compiles).toBe(0);
  });

  it.each(['07', '2020-12'] as const)(
    'never compiles subschemas named inside examples (draft %s): no step would count them',
    draft => {
      // 1.3 KB: compiled, validating {"a": 1} tried 2^20 branches (2 s, 7 steps counted of
      // 50,000); at 24 levels the process ran out of memory. Left out of the compiled copy, the
      // anchor names nothing.
      const budget = traceCheckBudget();
      const steps = budget.steps;
      const result = checkArguments(anchorChainInData(20, draft), { a: 1 }, budget, {
        now: clock(),
      });
      expect(result).toMatchObject({ status: 'unchecked' });
      expect((result as { reason: string }).reason).toMatch(/resolve reference #s20/);
      expect(steps - budget.steps).toBeLessThan(10);
    },
  );

  it('checks a schema whose data holds ids: Pydantic examples, a default, a const', () => {
    const schema = {
      type: 'object',
      properties: {
        doc: {
          type: 'object',
          examples: [{ $id: 'doc-1', title: 'x' }],
          default: { $id: 'doc-0' },
        },
        kind: { const: { $anchor: 'k' } },
      },
    };
    const args = { doc: { title: 'y' }, kind: { $anchor: 'k' } };
    expect(checkArguments(schema, args, traceCheckBudget(), { now: clock() })).toEqual({
      status: 'valid',
    });
    expect(
      checkArguments(schema, { ...args, kind: 1 }, traceCheckBudget(), { now: clock() }),
    ).toMatchObject({ status: 'invalid' });
  });

  it('refuses a dependentRequired that holds anything but lists of property names', () => {
    // An object there would be walked for ids as `examples` is (draft-07 does not know it).
    const schema = {
      type: 'object',
      dependentRequired: { a: { $id: '#s1', anyOf: [{ $ref: '#s1' }] } },
    };
    expect(checkArguments(schema, { a: 1 }, traceCheckBudget(), { now: clock() })).toEqual({
      status: 'unchecked',
      reason: "its schema's dependentRequired is not a map of lists of property names",
    });
    expect(
      checkArguments(
        {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          dependentRequired: { a: ['b'] },
        },
        { a: 1 },
        traceCheckBudget(),
        { now: clock() },
      ),
    ).toMatchObject({ status: 'invalid' });
  });

  it.each([
    ['dependentRequired', 'https://json-schema.org/draft/2019-09/schema'],
    ['dependencies', undefined],
  ] as const)('refuses a %s list of 2,000 names before compiling it', (keyword, draft) => {
    // Compiled, each name's check held the whole list: 156 MB of code in 0.6 s, as 4 keywords
    // (6,000 names ran the process out of memory); 100 objects took 1.3 s for 403 steps.
    const names = Array.from({ length: 2_000 }, (_, i) => i.toString(36));
    const schema = { $schema: draft, type: 'array', items: { [keyword]: { a: names } } };
    const before = work();
    expect(checkArguments(schema, [{ a: 1 }], traceCheckBudget(), { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `its schema's dependentRequired/dependencies lists are larger than ${CHECK_LIMITS.maxDependencyListChars / 1024} KiB as compiled (each list's names times their characters), the bound`,
    });
    expect(work().compiles - before.compiles).toBe(0);
    // Within the bound, each name checked is a step: 2,400 objects of 100 missing names each
    // (240,000 errors) stop at the call's bound, not at 4 steps an object.
    const within = {
      $schema: draft,
      type: 'array',
      items: { [keyword]: { a: names.slice(0, 100) } },
    };
    const budget = traceCheckBudget();
    const args = Array.from({ length: 2_400 }, () => ({ a: 1 }));
    expect(checkArguments(within, args, budget, { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
    });
    expect(
      checkArguments(
        within,
        [{ a: 1, ...Object.fromEntries(names.slice(0, 100).map(n => [n, 1])) }],
        budget,
        { now: clock() },
      ),
    ).toEqual({ status: 'valid' });
  });

  it('counts the pairs uniqueItems compares as steps, before comparing them', () => {
    // 499 distinct objects (999 values, within the uniqueItems bound): 124,251 comparisons, which
    // counted as 502 steps, so a trace's budget let about 400 such calls through.
    const steps = (schema: unknown, args: unknown[]) => {
      const budget = traceCheckBudget();
      const result = checkArguments(schema, args, budget, { now: clock() });
      return { result, spent: CHECK_LIMITS.maxStepsPerTrace - budget.steps };
    };
    const objects = Array.from({ length: 499 }, (_, i) => ({ a: i }));
    const compared = steps({ type: 'array', uniqueItems: true }, objects);
    expect(compared.result).toEqual({ status: 'valid' });
    // 124,251 pairs, a step per 4: 31,063 steps, about 500 for the items themselves, and 999 for
    // measuring the arguments' values.
    expect(compared.spent).toBeGreaterThanOrEqual(31_063);
    expect(compared.spent).toBeLessThan(33_000);
    // Ajv reads `items.type` only: scalar items reached through a `$ref` are compared in pairs.
    const named = Array.from({ length: 499 }, (_, i) => `s${i}`);
    const setOfEnum = {
      type: 'array',
      uniqueItems: true,
      items: { $ref: '#/$defs/C' },
      $defs: { C: { type: 'string' } },
    };
    expect(steps(setOfEnum, named).spent).toBeGreaterThanOrEqual(31_063);
    // Items of scalar types are found by value in one pass: no pairs are counted.
    const strings = Array.from({ length: 999 }, (_, i) => `s${i}`);
    const byValue = steps({ type: 'array', items: { type: 'string' }, uniqueItems: true }, strings);
    expect(byValue.result).toEqual({ status: 'valid' });
    expect(byValue.spent).toBeLessThan(5_000);
    // Duplicates are still found.
    expect(steps({ type: 'array', uniqueItems: true }, [{ a: 1 }, { a: 1 }]).result).toMatchObject({
      status: 'invalid',
    });
  });

  it('compiles a $ref fan-out within the bounds once, referenced not inlined', () => {
    const schema = refFanOut(90, 200);
    const before = work();
    const ok = checkArguments(schema, { r0: { f0: 'a' }, r1: { f1: 'b' } }, traceCheckBudget(), {
      now: clock(),
    });
    expect(ok).toEqual({ status: 'valid' });
    const bad = checkArguments(schema, { r0: { f0: 1 } }, traceCheckBudget(), { now: clock() });
    expect(bad).toEqual({ status: 'invalid', problems: ['/r0/f0: must be string'] });
    const after = work();
    expect(after.compiles - before.compiles).toBe(1);
    // Every key counted once: 200 + 200 in the definition, 90 + 90 in the properties, and a few.
    expect(after.keywordsCompiled - before.keywordsCompiled).toBeLessThan(600);
  });

  it('refuses a schema nested 3,000 deep without recursing (JSON.stringify threw here before)', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 3_000; i++) deep = { type: 'object', properties: { x: deep } };
    const before = work();
    expect(checkArguments(deep, { x: {} })).toEqual({
      status: 'unchecked',
      reason: `its schema nests deeper than ${CHECK_LIMITS.maxDepth} levels`,
    });
    expect(work().compiles).toBe(before.compiles);
  });

  it('stops an anyOf of 200 branches over 4,000 items at the step bound', () => {
    const branches = Array.from({ length: 200 }, (_, i) => ({
      type: 'object',
      required: [`k${i}`],
    }));
    const schema = { type: 'array', items: { anyOf: branches } };
    const items = Array.from({ length: 4_000 }, () => ({}));
    const budget = traceCheckBudget();
    expect(checkArguments(schema, items, budget, { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
    });
    // The trace is debited the work that ran: within one item's charge (its 200 branches) of the
    // call's bound, never past it.
    const spent = CHECK_LIMITS.maxStepsPerTrace - budget.steps;
    expect(spent).toBeLessThanOrEqual(CHECK_LIMITS.maxStepsPerCall);
    expect(spent).toBeGreaterThan(CHECK_LIMITS.maxStepsPerCall - 1_000);
  });

  it('stops an exponential anyOf of recursive $refs at the step bound', () => {
    // Each level tries two branches that both lead to the next: 2^30 paths for one value.
    const definitions: Record<string, unknown> = { d30: { type: 'string' } };
    for (let i = 0; i < 30; i++)
      definitions[`d${i}`] = {
        anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }],
      };
    const schema = { definitions, $ref: '#/definitions/d0' };
    expect(checkArguments(schema, 5, traceCheckBudget(), { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
    });
  });

  it('shares one budget across a trace: later calls are unchecked once it is spent', () => {
    const branches = Array.from({ length: 100 }, (_, i) => ({ required: [`k${i}`] }));
    const schema = { type: 'array', items: { anyOf: branches } };
    const items = Array.from({ length: 1_000 }, () => ({}));
    const budget = traceCheckBudget();
    const reasons = Array.from({ length: 6 }, () => {
      const result = checkArguments(schema, items, budget, { now: clock() });
      return result.status === 'unchecked' ? result.reason : result.status;
    });
    // Four calls spend close to their bound each; the fifth finds fewer steps left than its 1,001
    // values, and measuring them takes those to the last (a debit never passes what was left).
    expect(reasons).toEqual([
      ...Array(4).fill(
        `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
      ),
      `checking it would pass the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps)`,
      `the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps) was spent on earlier calls`,
    ]);
    expect(budget.steps).toBe(0);
    expect(checkArguments({ type: 'string' }, 'a', budget, { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps) was spent on earlier calls`,
    });
  });

  it('debits a call refused before its work the work done, never the estimate refused', () => {
    // A 5,000-character string under a 2,003-instruction pattern: its match, priced at 626,000
    // steps, is refused before it runs. The trace had first been debited the estimate (-426,387
    // left, 96db14f), then the call's whole allowance: four such calls spent the trace's 200,000
    // steps on work that never ran, and every later call, with a pattern or not, was unchecked.
    const schema = {
      type: 'object',
      properties: { body: { type: 'string', pattern: '^[\\s\\S]{0,1000}$' } },
    };
    const budget = traceCheckBudget();
    for (let i = 0; i < 10; i++)
      expect(checkArguments(schema, { body: 'x'.repeat(5_000) }, budget, { now: clock() })).toEqual(
        {
          status: 'unchecked',
          reason: `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
        },
      );
    // Each call measured its 2 values and ran two subschemas before the refusal: the object (1,
    // its 2 keys, its 1 property) and the string (1, its 2 keys, 4 for its 4 KiB): 13 steps, 130
    // for the ten.
    expect(CHECK_LIMITS.maxStepsPerTrace - budget.steps).toBe(130);
    expect(checkArguments(schema, { body: 'short' }, budget, { now: clock() })).toEqual({
      status: 'valid',
    });
    expect(checkArguments({ type: 'string' }, 'a', budget, { now: clock() })).toEqual({
      status: 'valid',
    });
  });

  it('charges measuring the arguments to the call and the trace: a step per value', () => {
    // The walk that measures a call's arguments (up to 5,001 values) was not charged: a trace
    // could make every call walk its bound for free.
    const array = { type: 'array' };
    const budget = traceCheckBudget();
    expect(checkArguments(array, Array(4_999).fill(null), budget, { now: clock() })).toEqual({
      status: 'valid',
    });
    // Measured: the array and its 4,999 items, 5,000 steps. Validated: the array's subschema
    // once, 1 + its 1 key + its 4,999 items, 5,001 steps.
    expect(CHECK_LIMITS.maxStepsPerTrace - budget.steps).toBe(10_001);
    // Past the bound: the walk stops at the 5,001st value, and those are debited.
    const before = budget.steps;
    expect(checkArguments(array, Array(6_000).fill(null), budget, { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `its arguments are too large to check (more than ${CHECK_LIMITS.maxArgumentNodes} values, ${CHECK_LIMITS.maxArgumentDepth} levels or ${CHECK_LIMITS.maxArgumentChars / 1024} KiB)`,
    });
    expect(before - budget.steps).toBe(CHECK_LIMITS.maxArgumentNodes + 1);
    // A trace with fewer steps left than values to walk: the walk stops where the budget does.
    const little = { steps: 100, compileKeywords: CHECK_LIMITS.maxCompiledKeywordsPerTrace };
    expect(checkArguments(array, Array(4_999).fill(null), little, { now: clock() })).toEqual({
      status: 'unchecked',
      reason: `checking it would pass the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps)`,
    });
    expect(little.steps).toBe(0);
  });

  it('bounds the strings given to patterns and the arguments measured', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]+$' } } };
    // 10 MB: past the arguments' bound, not even measured whole.
    expect(checkArguments(schema, { a: 'a'.repeat(10_000_000) }).status).toBe('unchecked');
    // 100 KB: measured, never matched.
    expect(checkArguments(schema, { a: `${'a'.repeat(100_000)}1` })).toEqual({
      status: 'unchecked',
      reason: `1 of its strings are longer than ${CHECK_LIMITS.maxMatchedChars} characters, the bound for matching a pattern or format`,
    });
  });

  it('follows a self $ref within the data, and refuses remote ones', () => {
    const tree = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    };
    expect(checkArguments(tree, { name: 'a', children: [{ name: 'b', children: [] }] })).toEqual({
      status: 'valid',
    });
    expect(checkArguments(tree, { name: 'a', children: [{ children: [] }] })).toEqual({
      status: 'invalid',
      problems: ["/children/0: must have required property 'name'"],
    });
    expect(checkArguments({ $ref: 'http://127.0.0.1:1/x.json' }, {}).status).toBe('unchecked');
  });

  it('refuses a $ref into data, which the step count would not see', () => {
    const schema = {
      default: { anyOf: [{ $ref: '#/default' }, { $ref: '#/default' }] },
      $ref: '#/default',
    };
    expect(checkArguments(schema, 1)).toEqual({
      status: 'unchecked',
      reason: `its schema's $ref "#/default" points into default, which holds data, not a schema`,
    });
  });

  it('refuses a huge enum, and names at most ten allowed values', () => {
    const huge = { enum: Array.from({ length: 5_000 }, (_, i) => i) };
    expect(checkArguments(huge, -1)).toEqual({
      status: 'unchecked',
      reason: `its schema lists more than ${CHECK_LIMITS.maxEnumValues} enum values, the bound`,
    });
    const some = { enum: Array.from({ length: 50 }, (_, i) => i) };
    const result = checkArguments(some, -1);
    expect(result).toEqual({
      status: 'invalid',
      problems: ['/: must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 (and 40 more)'],
    });
  });

  it('compiles at most the trace budget of new keywords, and the process rate', () => {
    const wide = (tag: string) => ({
      type: 'object',
      title: tag,
      properties: Object.fromEntries(
        Array.from({ length: 450 }, (_, i) => [`p${i}`, { type: 'string' }]),
      ),
    });
    const budget = traceCheckBudget();
    const now = clock();
    expect(checkArguments(wide('a'), {}, budget, { now }).status).toBe('valid');
    expect(checkArguments(wide('b'), {}, budget, { now }).status).toBe('valid');
    expect(checkArguments(wide('c'), {}, budget, { now })).toEqual({
      status: 'unchecked',
      reason: `the trace's compile budget (${CHECK_LIMITS.maxCompiledKeywordsPerTrace} schema keywords) was spent on other schemas`,
    });
    // Compiled already: no budget needed.
    expect(checkArguments(wide('a'), {}, budget, { now }).status).toBe('valid');
    // The process rate: the burst taken, a clock that stands still refuses new schemas, and a
    // second later the refill compiles one.
    resetValidators();
    expect(takeCompileTokens(VALIDATOR_LIMITS.compileBurstKeywords, 0)).toBe(true);
    const before = work().compiles;
    expect(checkArguments(wide('r1'), {}, traceCheckBudget(), { now: () => 0 })).toEqual({
      status: 'unchecked',
      reason: `new schemas are compiled at most ${VALIDATOR_LIMITS.compileKeywordsPerSecond} keywords a second, and that rate was reached: a later trace will check it`,
    });
    expect(work().compiles).toBe(before);
    expect(checkArguments(wide('r1'), {}, traceCheckBudget(), { now: () => 1_000 }).status).toBe(
      'valid',
    );
    expect(work().compiles).toBe(before + 1);
  });

  it('keeps compiled validators within their byte bound over 16 times the schemas it holds', () => {
    // The cache's bound and an instance's keywords a sixteenth of the production ones (their
    // ratio kept), so 625 distinct schemas do what 10,000 do at the production bound (13 s of
    // compiles there): fill the cache, evict the least recently used, replace instances.
    const scale = 16;
    const bounds = {
      cacheBytes: VALIDATOR_LIMITS.cacheBytes / scale,
      keywordsPerInstance: VALIDATOR_LIMITS.keywordsPerInstance / scale,
    };
    resetValidators(bounds);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const now = clock();
    const heapAfter = (from: number, to: number): number => {
      for (let i = from; i < to; i++) {
        const schema = {
          type: 'object',
          properties: { [`field${i}`]: { type: 'string', minLength: i % 7 } },
          required: [`field${i}`],
        };
        expect(
          checkArguments(schema, { [`field${i}`]: 'value-of-it' }, traceCheckBudget(), { now }),
        ).toEqual({ status: 'valid' });
      }
      gc();
      gc();
      return process.memoryUsage().heapUsed;
    };
    const before = work();
    const atFirst = heapAfter(0, 2_000 / scale);
    const atLast = heapAfter(2_000 / scale, 10_000 / scale);
    expect(work().compiles - before.compiles).toBe(10_000 / scale);
    expect(cachedValidatorBytes()).toBeLessThanOrEqual(bounds.cacheBytes);
    // 455 of the 625: the cache holds 170 of these schemas (6 KiB estimated each).
    expect(work().evicted - before.evicted).toBeGreaterThan(1_000 / scale);
    // The 500 after the first 125 took about 1 MB (8,000 at the production bound 10.8 MB).
    // Unbounded (the cache keeping every schema), they took about 4.5 MB (8,000 took 48 MB).
    expect(atLast - atFirst).toBeLessThan(2 * bounds.cacheBytes);
  });
});

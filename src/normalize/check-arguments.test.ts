import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkArguments, CHECK_LIMITS } from './check-arguments.js';
import { validatorStats } from './schema-validators.js';

const currency = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { amount: { type: 'number' }, from: { type: 'string' }, to: { type: 'string' } },
  required: ['amount', 'from', 'to'],
  additionalProperties: false,
};

describe('checkArguments', () => {
  it('lists every problem as path: message, a property before the object as a whole', () => {
    expect(checkArguments(currency, { amount: '100', from: 'EUR' })).toEqual({
      status: 'invalid',
      problems: ['/amount: must be number', "/: must have required property 'to'"],
    });
    expect(checkArguments(currency, { amount: 1, from: 'EUR', to: 'USD', fee: 2 })).toEqual({
      status: 'invalid',
      problems: ["/: must NOT have additional property 'fee'"],
    });
    expect(checkArguments(currency, { amount: 1, from: 'EUR', to: 'USD' })).toEqual({
      status: 'valid',
    });
  });

  it('reads draft-07, 2019-09 and 2020-12 schemas by their $schema', () => {
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'number' }] };
    expect(checkArguments(tuple, ['a', 'b']).status).toBe('invalid');
    const prefix = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'number' }],
    };
    expect(checkArguments(prefix, ['a', 'b'])).toEqual({
      status: 'invalid',
      problems: ['/1: must be number'],
    });
    const dependent = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      dependentRequired: { card: ['cvc'] },
    };
    expect(checkArguments(dependent, { card: '4242' }).status).toBe('invalid');
  });

  it('names the allowed values of an enum; formats are annotations unless asserted', () => {
    const schema = {
      type: 'object',
      properties: { unit: { enum: ['C', 'F'] }, day: { type: 'string', format: 'date' } },
    };
    expect(checkArguments(schema, { unit: 'K', day: 'tomorrow' })).toEqual({
      status: 'invalid',
      problems: ['/unit: must be one of "C", "F"'],
    });
    expect(
      checkArguments(schema, { unit: 'K', day: 'tomorrow' }, undefined, { assertFormats: true }),
    ).toEqual({
      status: 'invalid',
      problems: ['/unit: must be one of "C", "F"', '/day: must match format "date"'],
    });
  });

  it('accepts what Pydantic accepts for its date-time and time formats (annotations)', () => {
    // Pydantic writes `format: date-time` / `time` and accepts values with no offset.
    const schema = {
      type: 'object',
      properties: {
        at: { type: 'string', format: 'date-time' },
        time: { type: 'string', format: 'time' },
      },
      required: ['at', 'time'],
    };
    expect(checkArguments(schema, { at: '2024-05-01T10:00:00', time: '10:00:00' })).toEqual({
      status: 'valid',
    });
  });

  it('runs patterns on RE2: a catastrophic pattern on a long input answers', () => {
    // V8's backtracking engine would not return from this within the test's timeout.
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } };
    const long = CHECK_LIMITS.maxMatchedChars;
    expect(checkArguments(schema, { a: `${'a'.repeat(long - 1)}b` })).toEqual({
      status: 'invalid',
      problems: ['/a: must match pattern "^(a+)+$"'],
    });
    expect(checkArguments(schema, { a: 'a'.repeat(long) }).status).toBe('valid');
  });

  it('matches no string longer than the bound, and does not call such a call valid', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]+$' } } };
    expect(checkArguments(schema, { a: 'a'.repeat(CHECK_LIMITS.maxMatchedChars + 1) })).toEqual({
      status: 'unchecked',
      reason: `1 of its strings are longer than ${CHECK_LIMITS.maxMatchedChars} characters, the bound for matching a pattern or format`,
    });
    // Invalid for another reason: the verdict stands, and says what was not matched.
    const two = { ...schema, required: ['b'] };
    expect(checkArguments(two, { a: 'a'.repeat(CHECK_LIMITS.maxMatchedChars + 1) })).toEqual({
      status: 'invalid',
      problems: ["/: must have required property 'b'"],
      notes: [
        `1 string(s) longer than ${CHECK_LIMITS.maxMatchedChars} characters not matched against a pattern or format`,
      ],
    });
  });

  it('skips a pattern RE2 cannot run, and says so', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', pattern: '(?=x)y' } } };
    expect(checkArguments(schema, { a: 'zzz' })).toEqual({
      status: 'valid',
      notes: ['pattern "(?=x)y" not checked: RE2 cannot run it (lookaround or backreferences)'],
    });
  });

  it('keeps two patterns of one schema apart', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', pattern: '^[A-Z]{3}$' },
        b: { type: 'string', pattern: '^[0-9]+$' },
      },
    };
    expect(checkArguments(schema, { a: 'EUR', b: '42' }).status).toBe('valid');
    expect(checkArguments(schema, { a: '42', b: 'EUR' })).toEqual({
      status: 'invalid',
      problems: ['/a: must match pattern "^[A-Z]{3}$"', '/b: must match pattern "^[0-9]+$"'],
    });
  });

  it('leaves a call unchecked, with the reason, when the schema cannot be compiled or is too large', () => {
    expect(checkArguments({ $ref: 'https://example.com/tool.json' }, {})).toEqual({
      status: 'unchecked',
      reason: 'its schema\'s $ref "https://example.com/tool.json" is not local to the schema',
    });
    expect(checkArguments({ $ref: '#/definitions/missing' }, {})).toEqual({
      status: 'unchecked',
      reason:
        "its schema cannot be compiled: can't resolve reference #/definitions/missing from id urn:spanscore:tool-arguments",
    });
    expect(checkArguments({ type: 'wat' }, {}).status).toBe('unchecked');
    const big = { type: 'object', description: 'x'.repeat(CHECK_LIMITS.maxChars) };
    expect(checkArguments(big, {})).toEqual({
      status: 'unchecked',
      reason: `its schema is larger than ${CHECK_LIMITS.maxChars / 1024} KiB`,
    });
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'string' }]),
      ),
    };
    expect(checkArguments(wide, {})).toEqual({
      status: 'unchecked',
      reason: `its schema has more than ${CHECK_LIMITS.maxKeywords} keywords, the bound`,
    });
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
    expect(checkArguments(deep, {}).status).toBe('unchecked');
  });

  it("counts a schema's numbers, booleans and nulls toward its size, before compiling", () => {
    // An enum value of 100,000 zeros (200 KB of text) had counted nothing toward the 32 KB bound:
    // it was compiled, and stringified whole for each problem that quoted it.
    const compiles = validatorStats.compiles;
    expect(checkArguments({ enum: [Array(100_000).fill(0)] }, [1])).toEqual({
      status: 'unchecked',
      reason: `its schema is larger than ${CHECK_LIMITS.maxChars / 1024} KiB`,
    });
    expect(checkArguments({ const: Array(40_000).fill(null) }, 1).status).toBe('unchecked');
    expect(validatorStats.compiles).toBe(compiles);
    expect(checkArguments({ enum: [Array(1_000).fill(0)] }, [1]).status).toBe('invalid');
  });

  it('leaves arguments too large to check unchecked', () => {
    const list = { type: 'array', items: { type: 'number' } };
    expect(
      checkArguments(
        list,
        Array.from({ length: 10 }, (_, i) => i),
      ).status,
    ).toBe('valid');
    expect(
      checkArguments(
        list,
        Array.from({ length: CHECK_LIMITS.maxArgumentNodes + 1 }, (_, i) => i),
      ).status,
    ).toBe('unchecked');
    const unique = { type: 'array', uniqueItems: true };
    expect(
      checkArguments(
        unique,
        Array.from({ length: CHECK_LIMITS.maxArgumentNodesUniqueItems + 1 }, (_, i) => ({ i })),
      ).status,
    ).toBe('unchecked');
  });

  it('does not mix up two schemas with the same $id', () => {
    expect(checkArguments({ $id: 'tool', type: 'object', required: ['a'] }, {})).toEqual({
      status: 'invalid',
      problems: ["/: must have required property 'a'"],
    });
    expect(checkArguments({ $id: 'tool', type: 'object', required: ['b'] }, {})).toEqual({
      status: 'invalid',
      problems: ["/: must have required property 'b'"],
    });
  });

  it('never throws on any schema and any arguments (fuzz)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.jsonValue({ maxDepth: 6 }), (schema, args) => {
        const result = checkArguments(schema, args);
        expect(['valid', 'invalid', 'unchecked']).toContain(result.status);
      }),
      { numRuns: 400 },
    );
  });

  it("names the call's bound, not the trace's, for work priced past the call's bound", () => {
    // A 626,000-step match, with fewer than 50,000 steps left: it named the trace's budget.
    const schema = {
      type: 'object',
      properties: { body: { type: 'string', pattern: '^[\\s\\S]{0,1000}$' } },
    };
    const left = (steps: number) => ({ steps, compileKeywords: 2_000 });
    let t = 0;
    const now = () => (t += 60_000); // a minute a call: the compile rate never refuses
    expect(checkArguments(schema, { body: 'x'.repeat(5_000) }, left(40_000), { now })).toEqual({
      status: 'unchecked',
      reason: `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
    });
    // A charge the call's bound allows, past what the trace has left: the trace's budget is named.
    const anyOf = Array.from({ length: 100 }, (_, i) => ({ required: [`k${i}`] }));
    const items = Array.from({ length: 1_000 }, () => ({}));
    const schema2 = { type: 'array', items: { anyOf } };
    expect(checkArguments(schema2, items, left(20_000), { now })).toEqual({
      status: 'unchecked',
      reason: `checking it would pass the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps)`,
    });
  });
});

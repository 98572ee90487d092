import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  anyJson,
  mutate,
  toolSchema,
  valueOf,
  type Draft,
  type Json,
  type Schema,
} from '../../test/helpers/json-schema-arbitraries.js';
import { checkArguments, traceCheckBudget } from './check-arguments.js';
import { resetValidators } from './schema-validators.js';

/**
 * `checkArguments` (Ajv, compiled, on the copy `prepareSchema` makes with a step keyword in every
 * subschema) against a second implementation that interprets the original schema:
 * `@cfworker/json-schema` (drafts 4, 7, 2019-09 and 2020-12, no code generation). Both must give
 * the same verdict on generated tool schemas and values, in draft-07 and 2020-12.
 *
 * The grammar (test/helpers/json-schema-arbitraries.ts) leaves out what the two legitimately read
 * differently, each pinned in the last test below:
 * - `format`: ours is an annotation (the default since 2019-09); cfworker asserts the formats it
 *   knows.
 * - `pattern`: ours runs on RE2, cfworker on ECMAScript regexes; only patterns both read alike.
 * - beside a draft-07 `$ref`: the spec ignores siblings, cfworker too, Ajv applies them.
 * - `nullable`: Ajv reads OpenAPI's keyword; for JSON Schema it is unknown.
 * - a property named `__proto__`, which Ajv skips on purpose. Names every object inherits
 *   (`toString`, `constructor`) agree since Ajv's `ownProperties` is on (tested below).
 */

const DRAFTS: Array<[Draft, '7' | '2020-12']> = [
  ['draft-07', '7'],
  ['2020-12', '2020-12'],
];
type Source = 'derived' | 'mutated' | 'independent';
type Tally = Record<'valid' | 'invalid' | 'unchecked', number>;

// Each check a minute after the last: the process's compile rate never refuses (what it refuses
// is unchecked, which says nothing of the verdicts).
let t = 0;
const now = () => (t += 60_000);
// The next file in this worker starts from an empty cache and a full compile rate.
afterAll(() => resetValidators());

/** What a trace would carry: JSON text, parsed (`-0` and `undefined` gone). */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function oursOf(schema: Schema, value: Json): 'valid' | 'invalid' | 'unchecked' {
  return checkArguments(asJson(schema), asJson(value), traceCheckBudget(), { now }).status;
}

function theirsOf(schema: Schema, value: Json, draft: '7' | '2020-12'): boolean {
  return new Validator(asJson(schema), draft).validate(asJson(value)).valid;
}

/** A schema with values of each source, several of each. */
function caseOf(draft: Draft) {
  return toolSchema(draft).chain(schema => {
    const derived = valueOf(schema, schema);
    const sourced = (source: Source, arb: fc.Arbitrary<Json>) =>
      arb.map(value => ({ source, value }));
    return fc.record({
      schema: fc.constant(schema),
      values: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: sourced('derived', derived) },
          {
            weight: 3,
            arbitrary: sourced(
              'mutated',
              fc.tuple(derived, fc.nat(), fc.nat()).map(([v, at, how]) => mutate(v, at, how)),
            ),
          },
          { weight: 1, arbitrary: sourced('independent', anyJson) },
        ),
        { minLength: 4, maxLength: 10 },
      ),
    });
  });
}

describe('checkArguments against @cfworker/json-schema', () => {
  it.each(DRAFTS)('gives the same verdict on generated %s schemas and values', (draft, theirs) => {
    const tally: Record<Source, Tally> = {
      derived: { valid: 0, invalid: 0, unchecked: 0 },
      mutated: { valid: 0, invalid: 0, unchecked: 0 },
      independent: { valid: 0, invalid: 0, unchecked: 0 },
    };
    fc.assert(
      fc.property(caseOf(draft), ({ schema, values }) => {
        for (const { source, value } of values) {
          const ours = oursOf(schema, value);
          tally[source][ours]++;
          if (ours === 'unchecked') continue;
          expect(ours === 'valid', JSON.stringify({ schema, value })).toBe(
            theirsOf(schema, value, theirs),
          );
        }
      }),
      { numRuns: 250 },
    );
    const all = Object.values(tally).reduce((sum, n) => ({
      valid: sum.valid + n.valid,
      invalid: sum.invalid + n.invalid,
      unchecked: sum.unchecked + n.unchecked,
    }));
    const checks = all.valid + all.invalid + all.unchecked;
    const share = (n: number) => n / checks;
    // Both verdicts in good measure, and from values built for the schema as well as against it.
    expect(share(all.valid), JSON.stringify(tally)).toBeGreaterThan(0.3);
    expect(share(all.invalid), JSON.stringify(tally)).toBeGreaterThan(0.3);
    // Values built for the schema pass more often than values built against it. (Not "most derived
    // values pass": the generator misses often enough, 54–65% valid over twelve runs, that with
    // ~700 values from 250 schemas the two counts met once.)
    const validShare = (t: Tally) => t.valid / (t.valid + t.invalid + t.unchecked);
    expect(validShare(tally.derived), JSON.stringify(tally)).toBeGreaterThan(
      validShare(tally.mutated),
    );
    expect(tally.mutated.invalid).toBeGreaterThan(tally.mutated.valid);
    expect(tally.independent.invalid).toBeGreaterThan(0);
    expect(tally.independent.valid).toBeGreaterThan(0);
    // Nothing here passes a bound: an unchecked verdict is a compile error, and rare.
    expect(share(all.unchecked), JSON.stringify(tally)).toBeLessThan(0.01);
  });

  it('agrees on multipleOf past 1e21 and for fractional multiples', () => {
    // Found by the generated cases: Ajv's default test, `q !== parseInt(q)`, reads 1e21 as 1, so
    // -2e21 was no multiple of 2; and 0.3 / 0.1 is 2.9999999999999996. A tolerance on the
    // quotient (Ajv's multipleOfPrecision) would call 5e-324 a multiple of 1: decimals, exactly.
    const cases: Array<[string, string, 'valid' | 'invalid']> = [
      ['{"multipleOf":2}', '-2e21', 'valid'],
      ['{"type":"integer","multipleOf":2}', '4e22', 'valid'],
      ['{"multipleOf":0.1}', '0.3', 'valid'],
      ['{"multipleOf":0.01}', '19.99', 'valid'],
      ['{"multipleOf":2}', '7', 'invalid'],
      ['{"multipleOf":0.1}', '0.35', 'invalid'],
      ['{"type":"number","multipleOf":1}', '5e-324', 'invalid'],
    ];
    for (const [schema, value, verdict] of cases) {
      const [s, v] = [JSON.parse(schema) as Schema, JSON.parse(value) as Json];
      expect([schema, value, oursOf(s, v)]).toEqual([schema, value, verdict]);
      expect([schema, value, theirsOf(s, v, '2020-12')]).toEqual([
        schema,
        value,
        verdict === 'valid',
      ]);
    }
  });

  it('agrees on names every object inherits: present only when the arguments have them', () => {
    // Found by the generated cases: with Ajv's ownProperties off, `required: ["toString"]`
    // passed `{}` and a `constructor` property was checked on `{}`.
    const cases: Array<[string, string, 'valid' | 'invalid']> = [
      ['{"type":"object","required":["toString"]}', '{}', 'invalid'],
      ['{"type":"object","required":["toString"]}', '{"toString":1}', 'valid'],
      ['{"type":"object","properties":{"constructor":{"type":"string"}}}', '{}', 'valid'],
      [
        '{"type":"object","properties":{"constructor":{"type":"string"}}}',
        '{"constructor":1}',
        'invalid',
      ],
    ];
    for (const [schema, value, verdict] of cases) {
      const [s, v] = [JSON.parse(schema) as Schema, JSON.parse(value) as Json];
      expect([oursOf(s, v), theirsOf(s, v, '7')], `${schema} on ${value}`).toEqual([
        verdict,
        verdict === 'valid',
      ]);
    }
  });

  it('agrees on a `__proto__` key in data, which the compiled copy once lost', () => {
    // Assigning `__proto__` set the copy's prototype: the const below was compiled as `{}`. The
    // generated cases above find this too (`__proto__` is among their values' keys).
    const cases: Array<[string, string]> = [
      ['{"const":{"__proto__":1}}', '{}'],
      ['{"enum":[{"__proto__":1},true]}', '{}'],
      ['{"const":{"__proto__":1}}', '{"__proto__":1}'],
    ];
    for (const [schema, value] of cases) {
      const [s, v] = [JSON.parse(schema) as Schema, JSON.parse(value) as Json];
      expect(oursOf(s, v), `${schema} ${value}`).toBe(theirsOf(s, v, '7') ? 'valid' : 'invalid');
    }
  });

  // Where the two differ, each verdict pinned: a change to either side shows here. As JSON text,
  // which JSON.parse reads as a trace's would be (`__proto__` an own key).
  it.each([
    {
      why: 'formats are annotations here (asserted only with assertFormats); cfworker asserts',
      schema: '{"type":"string","format":"date"}',
      value: '"tomorrow"',
      ours: 'valid',
      cfworker: false,
    },
    {
      why: "patterns run on RE2, whose \\s is ASCII; ECMAScript's has Unicode spaces",
      schema: '{"type":"string","pattern":"^\\\\s$"}',
      value: '"\\u00a0"',
      ours: 'invalid',
      cfworker: true,
    },
    {
      why: 'Ajv applies what sits beside a draft-07 $ref, which the draft says to ignore',
      schema: '{"definitions":{"a":{"type":"string"}},"$ref":"#/definitions/a","maxLength":1}',
      value: '"ab"',
      ours: 'invalid',
      cfworker: true,
    },
    {
      why: "Ajv reads OpenAPI's nullable; JSON Schema does not know it",
      schema: '{"type":"string","nullable":true}',
      value: 'null',
      ours: 'valid',
      cfworker: false,
    },
    {
      why: 'Ajv skips a property named __proto__, on purpose',
      schema: '{"type":"object","properties":{"__proto__":{"type":"string"}}}',
      value: '{"__proto__":1}',
      ours: 'valid',
      cfworker: false,
    },
  ])('differs, known: $why', ({ schema, value, ours, cfworker }) => {
    const [s, v] = [JSON.parse(schema) as Schema, JSON.parse(value) as Json];
    expect([oursOf(s, v), theirsOf(s, v, '7')]).toEqual([ours, cfworker]);
  });
});

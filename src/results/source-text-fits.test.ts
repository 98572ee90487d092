import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentAttribute } from '../normalize/content-attribute.js';
import { sourceTextFits } from './source-text-fits.js';

const parsed = (text: string): unknown => contentAttribute({ a: text }, 'a');

/** A JSON number as a sender may write it: any sign, digits, fraction and exponent. */
const numberText = fc
  .tuple(
    fc.constantFrom('', '-'),
    // Runs of nines too: the digits that round up to one more (9999999999999999 to 1e16).
    fc.oneof(
      fc.constant('0'),
      fc.stringMatching(/^[1-9][0-9]{0,24}$/),
      fc.stringMatching(/^9{13,19}[0-9]?$/),
    ),
    fc.option(fc.stringMatching(/^[0-9]{1,20}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.nat(400)), {
      nil: undefined,
    }),
  )
  .map(
    ([sign, int, frac, exp]) =>
      `${sign}${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : exp.join('')}`,
  );

/** JSON text of lists and objects of such numbers and of strings with escapes, spaced at will. */
const jsonText: fc.Arbitrary<string> = fc
  .letrec<{ value: string }>(tie => ({
    value: fc.oneof(
      { depthSize: 'small' },
      numberText,
      // Escaped and raw lone surrogates: a raw one is written six times as long.
      fc.constantFrom(
        '"a"',
        '"\\u0041\\/"',
        '"\\ud800"',
        '"\ud800"',
        '"\udc00\ud800\ud800"',
        '"x\\n"',
        'true',
        'null',
      ),
      fc
        .tuple(fc.array(tie('value'), { maxLength: 5 }), fc.constantFrom('', ' '))
        .map(([items, space]) => `[${space}${items.join(`${space},`)}]`),
      fc
        .array(fc.tuple(fc.constantFrom('"k"', '"1"', '"__proto__"', '"b"'), tie('value')), {
          maxLength: 4,
        })
        .map(fields => `{${fields.map(([k, v]) => `${k}:${v}`).join(',')}}`),
    ),
  }))
  .value.filter(text => text.startsWith('[') || text.startsWith('{'));

describe('sourceTextFits', () => {
  it('never says a value fits when its JSON is longer than the text it was parsed from (fuzzed)', () => {
    fc.assert(
      fc.property(jsonText, text => {
        const value = parsed(text);
        if (sourceTextFits(value, text.length))
          expect(JSON.stringify(value).length).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 5000 },
    );
  });

  it('never says a value fits past any bound, and JSON writes at most six characters of one (fuzzed)', () => {
    fc.assert(
      fc.property(jsonText, fc.nat(7 * 64), (text, extra) => {
        const value = parsed(text);
        const written = JSON.stringify(value).length;
        // What lets a short text fit unsearched: no growth past six characters of one.
        expect(written).toBeLessThanOrEqual(6 * text.length);
        const bound = text.length + (extra % (6 * text.length));
        if (sourceTextFits(value, bound)) expect(written).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 5000, seed: 75 },
    );
  });

  it('measures what JSON writes longer (exponents, 16-digit integers, lone surrogates) where it could pass the bound', () => {
    // Each written longer than read: measured under a bound it could pass; under six times its
    // length, where no growth can pass the bound, it fits unsearched.
    for (const text of ['[1e20]', '[9999999999999999]', '[-99999999999999999]', '["\ud800"]']) {
      const written = JSON.stringify(JSON.parse(text)).length;
      expect(written, text).toBeGreaterThan(text.length);
      expect(sourceTextFits(parsed(text), written), text).toBe(false);
      expect(sourceTextFits(parsed(text), 6 * text.length - 1), text).toBe(false);
      expect(sourceTextFits(parsed(text), 6 * text.length), text).toBe(true);
    }
    // The most growth there is: raw lone surrogates, each written in six. Seventeen in one string
    // are written in more than five times the text (106 of 21), seven in more than four.
    for (const n of [7, 17, 100]) {
      const text = `["${'\ud800'.repeat(n)}"]`;
      const written = JSON.stringify(JSON.parse(text)).length;
      expect(written, `${n} surrogates`).toBe(6 * n + 4);
      expect(sourceTextFits(parsed(text), 6 * text.length), `${n} surrogates`).toBe(true);
      expect(sourceTextFits(parsed(text), written - 1), `${n} surrogates`).toBe(false);
    }
    // Written as long or shorter: spacing, escapes, decimals, 15 digits, repeated keys.
    for (const text of ['[ 1.50 , -0 ]', '{"s":"\\u0041","s":"\\/"}', '[999999999999999]']) {
      expect(JSON.stringify(JSON.parse(text)).length, text).toBeLessThanOrEqual(text.length);
      expect(sourceTextFits(parsed(text), text.length), text).toBe(true);
    }
  });

  it('says no past the bound or without a text', () => {
    expect(sourceTextFits(parsed('{"a":"bcd"}'), 10)).toBe(false);
    expect(sourceTextFits(parsed('{"a":"bcd"}'), 11)).toBe(true);
    expect(sourceTextFits({ a: 'bcd' }, 100)).toBe(false);
    expect(sourceTextFits('{"a":"bcd"}', 100)).toBe(false);
  });
});

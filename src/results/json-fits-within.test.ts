import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFitsWithin } from './json-fits-within.js';

describe('jsonFitsWithin', () => {
  it('never passes a value whose JSON is longer than the limit', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 300 }), (value, max) => {
        if (jsonFitsWithin(value, max))
          expect(JSON.stringify(value).length).toBeLessThanOrEqual(max);
      }),
      { numRuns: 2000 },
    );
  });

  it('passes the objects and arrays of a trace well within the limit, escapes counted', () => {
    const args = { city: 'Lisbon', date: '2026-12-01', note: 'say "hi"\n', n: [1, 2.5, -3e-7] };
    expect(jsonFitsWithin(args, 200)).toBe(true);
    expect(jsonFitsWithin([], 2)).toBe(true);
    expect(jsonFitsWithin({}, 1)).toBe(false);
    // '{"a":' and its string's 102: 108.
    expect(jsonFitsWithin({ a: 'x'.repeat(100) }, 107)).toBe(false);
    expect(jsonFitsWithin({ a: 'x'.repeat(100) }, 108)).toBe(true);
    // A quote writes two characters, a control character up to six.
    expect(jsonFitsWithin(['""'], 8)).toBe(true);
    expect(jsonFitsWithin(['""'], 7)).toBe(false);
    expect(jsonFitsWithin(['\u0001'], 10)).toBe(true);
    expect(jsonFitsWithin(['\u0001'], 9)).toBe(false);
  });

  it('refuses what JSON would write otherwise, or not at all', () => {
    for (const value of [
      'text',
      5,
      null,
      undefined,
      new Date(0),
      new (class Point {
        x = 1;
      })(),
      { n: 10n },
      { f: () => 1 },
      { u: undefined },
      [Number.NaN],
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
      new Uint8Array(2),
    ])
      expect(jsonFitsWithin(value, 1000)).toBe(false);
    expect(jsonFitsWithin(Object.assign(Object.create(null) as object, { a: 1 }), 1000)).toBe(true);
  });

  it('stops counting past the limit: a huge or deep value costs no more than the limit', () => {
    const long = new Array<number>(10_000_000);
    expect(jsonFitsWithin(long, 2000)).toBe(false);
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonFitsWithin(deep, 2000)).toBe(false);
    expect(jsonFitsWithin({ s: 'x'.repeat(10_000_000) }, 2000)).toBe(false);
  });
});

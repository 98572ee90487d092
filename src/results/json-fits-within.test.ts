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

  it('counts a number as the longest a double writes: 25 characters, a small negative one of 17 digits', () => {
    const longest = -0.0000012345678901234567;
    expect(JSON.stringify(longest)).toHaveLength(25);
    expect(jsonFitsWithin([longest], 26)).toBe(false); // written in 27
    expect(jsonFitsWithin([longest], 27)).toBe(true);
    // 79 of them are 2,055 characters: past the 2,000 a stored call keeps as a value.
    expect(jsonFitsWithin(Array<number>(79).fill(longest), 2000)).toBe(false);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e-5, max: -1e-6, noNaN: true }), { maxLength: 20 }),
        fc.nat(600),
        (list, max) => {
          if (jsonFitsWithin(list, max))
            expect(JSON.stringify(list).length).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 2000, seed: 75 },
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

  it('stops counting past the limit: a long, deep or wide value costs reads in the limit, not in its size', () => {
    // Every element and property read counted through a proxy: the work, not the time.
    const reads = { n: 0 };
    const counted = <T extends object>(value: T): T =>
      new Proxy(value, {
        get(target, key, receiver) {
          reads.n++;
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
    const long = counted(new Array<number>(1_000_000).fill(7));
    expect(jsonFitsWithin(long, 2000)).toBe(false);
    // Each number is bounded at 24 characters: about 80 elements, each its length and itself read.
    expect(reads.n).toBeLessThan(400);

    reads.n = 0;
    let deep: unknown[] = counted([]);
    for (let i = 0; i < 100_000; i++) deep = counted([deep]);
    expect(jsonFitsWithin(deep, 2000)).toBe(false);
    // Each level writes at least its two brackets: at most about 1,000 levels, not 100,000.
    expect(reads.n).toBeLessThan(4 * 1000);

    reads.n = 0;
    const wide: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) wide[`k${i}`] = i;
    expect(jsonFitsWithin(counted(wide), 2000)).toBe(false);
    // Each key writes at least `"k0":0,`: about 200 values read, not 100,000.
    expect(reads.n).toBeLessThan(400);

    // A sparse array (never JSON's) and a long string are refused too.
    expect(jsonFitsWithin(new Array<number>(10_000_000), 2000)).toBe(false);
    expect(jsonFitsWithin({ s: 'x'.repeat(10_000_000) }, 2000)).toBe(false);
  });
});

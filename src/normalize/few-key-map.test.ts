import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FewKeyMap, SCAN_LIMIT } from './few-key-map.js';

describe('FewKeyMap', () => {
  it('answers get and has as a Map does, below, at and past the scan limit, whatever capacity it was given', () => {
    const op = fc.record({
      set: fc.boolean(),
      // Few distinct keys against many sets: keys are set again; up to 80 keys: past the limit.
      key: fc.integer({ min: 0, max: 80 }).map(n => `k${n}`),
      value: fc.integer(),
    });
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 200 }),
        fc.nat({ max: 2 * SCAN_LIMIT }),
        (ops, capacity) => {
          const few = new FewKeyMap<string, number>(capacity);
          const map = new Map<string, number>();
          for (const { set, key, value } of ops) {
            if (set) {
              few.set(key, value);
              map.set(key, value);
            }
            expect(few.get(key)).toBe(map.get(key));
            expect(few.has(key)).toBe(map.has(key));
          }
          for (let n = 0; n <= 80; n++) expect(few.get(`k${n}`)).toBe(map.get(`k${n}`));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('compares object keys by identity', () => {
    const a = { id: 1 };
    const few = new FewKeyMap<object, string>(1);
    few.set(a, 'a');
    expect(few.get(a)).toBe('a');
    expect(few.get({ id: 1 })).toBeUndefined();
    expect(few.has({ id: 1 })).toBe(false);
  });
});

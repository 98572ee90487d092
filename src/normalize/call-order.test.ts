import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byStart, isSorted, sortRequests } from './call-order.js';

describe('sortRequests', () => {
  it('orders as a stable sort by start does, short lists in place and long ones copied', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 5 }), { maxLength: 40 }), starts => {
        const list = starts.map((t, n) => ({ startTimeUnixNano: BigInt(t), n }));
        const want = [...list].sort(byStart).map(r => r.n);
        const got = sortRequests(list);
        expect(got.map(r => r.n)).toEqual(want);
        expect(isSorted(got)).toBe(true);
        expect(got === list).toBe(list.length <= 32);
      }),
      { numRuns: 300 },
    );
  });
});

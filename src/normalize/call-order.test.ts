import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byStart, requestsSorted, sortRequests } from './call-order.js';
import type { ToolCall } from './tool-call.js';

describe('sortRequests', () => {
  it('orders as a stable sort by start does, short lists in place and long ones copied', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 5 }), { maxLength: 40 }), starts => {
        const list = starts.map((t, n) => ({
          call: { startTimeUnixNano: BigInt(t) } as ToolCall,
          n,
        }));
        const want = [...list].sort((a, b) => byStart(a.call, b.call)).map(r => r.n);
        const got = sortRequests(list);
        expect(got.map(r => r.n)).toEqual(want);
        expect(requestsSorted(got)).toBe(true);
        expect(got === list).toBe(list.length <= 32);
      }),
      { numRuns: 300 },
    );
  });
});

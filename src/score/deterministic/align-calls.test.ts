import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignAnyOrder, alignAnyOrderSteps, alignInOrder, type Pair } from './align-calls.js';

const total = (w: number[][], pairs: Pair[]): number =>
  pairs.reduce((s, [i, j]) => s + w[i]![j]!, 0);

// Exhaustive maximum over all one-to-one partial matchings (small sizes only).
function bruteForce(w: number[][], m: number, ordered: boolean): number {
  let best = 0;
  const used = new Array<boolean>(m).fill(false);
  const go = (i: number, lastJ: number, sum: number): void => {
    if (i === w.length) {
      best = Math.max(best, sum);
      return;
    }
    go(i + 1, lastJ, sum);
    for (let j = ordered ? lastJ + 1 : 0; j < m; j++) {
      if (used[j] || w[i]![j]! <= 0) continue;
      used[j] = true;
      go(i + 1, ordered ? j : lastJ, sum + w[i]![j]!);
      used[j] = false;
    }
  };
  go(0, -1, 0);
  return best;
}

const matrix = fc.integer({ min: 0, max: 5 }).chain(n =>
  fc.integer({ min: 0, max: 5 }).chain(m =>
    fc.tuple(
      fc.constant(m),
      fc.array(
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0.01, max: 1, noNaN: true })), {
          minLength: m,
          maxLength: m,
        }),
        { minLength: n, maxLength: n },
      ),
    ),
  ),
);

describe('alignAnyOrder (Hungarian)', () => {
  it('finds the maximum-weight one-to-one matching (checked against brute force)', () => {
    fc.assert(
      fc.property(matrix, ([m, w]) => {
        const pairs = alignAnyOrder(w, m);
        expect(new Set(pairs.map(p => p[1])).size).toBe(pairs.length);
        expect(total(w, pairs)).toBeCloseTo(bruteForce(w, m, false), 9);
      }),
      { numRuns: 500 },
    );
  });
  it('scans O(n²·m) columns for n expected against m actual: a trace of 2,000 calls against 3', () => {
    // Hostile in size (the actual calls come from the trace): padded to a square, 2,000³.
    const n = 3;
    const m = 2000;
    const w = Array.from({ length: n }, (_, i) =>
      Array.from({ length: m }, (_, j) => ((i * 7 + j) % 5) / 4),
    );
    const before = alignAnyOrderSteps();
    const pairs = alignAnyOrder(w, m);
    expect(alignAnyOrderSteps() - before).toBeLessThanOrEqual(n * (n + 1) * m);
    expect(pairs).toHaveLength(n);
    expect(total(w, pairs)).toBe(n); // every expected call meets a weight of 1
  });

  it('breaks ties as the square matrix did when fewer calls came than were expected', () => {
    // Two matchings weigh 1 here; the square matrix paired expected 0 with actual 0 as well.
    expect(
      alignAnyOrder(
        [
          [0.5, 0],
          [1, 0.5],
          [0, 0],
        ],
        2,
      ),
    ).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('does not depend on the order of the expected list (deepeval#3338)', () => {
    // expected A matches actual 0 (1.0) or 1 (0.5); expected B matches only actual 0 (1.0).
    expect(
      total(
        [
          [1, 0.5],
          [1, 0],
        ],
        alignAnyOrder(
          [
            [1, 0.5],
            [1, 0],
          ],
          2,
        ),
      ),
    ).toBe(1.5);
    expect(
      total(
        [
          [1, 0],
          [1, 0.5],
        ],
        alignAnyOrder(
          [
            [1, 0],
            [1, 0.5],
          ],
          2,
        ),
      ),
    ).toBe(1.5);
  });
});

describe('alignInOrder', () => {
  it('finds the maximum-weight non-crossing matching (checked against brute force)', () => {
    fc.assert(
      fc.property(matrix, ([m, w]) => {
        const pairs = alignInOrder(w, m);
        for (let k = 1; k < pairs.length; k++) {
          expect(pairs[k]![0]).toBeGreaterThan(pairs[k - 1]![0]);
          expect(pairs[k]![1]).toBeGreaterThan(pairs[k - 1]![1]);
        }
        expect(total(w, pairs)).toBeCloseTo(bruteForce(w, m, true), 9);
      }),
      { numRuns: 500 },
    );
  });
});

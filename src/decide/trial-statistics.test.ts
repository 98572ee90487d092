import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  directionOf,
  EXACT_RUNS,
  fisherOneSided,
  passAtK,
  passHatK,
  wilsonInterval,
} from './trial-statistics.js';

describe('wilsonInterval', () => {
  it.each([
    // Known values (R: binom::binom.confint(x, n, method = "wilson")).
    [8, 10, 0.4901625, 0.9433178],
    [0, 10, 0, 0.2775328],
    [10, 10, 0.7224672, 1],
    [1, 1, 0.2065493, 1],
    [50, 100, 0.4038315, 0.5961685],
  ])('%i of %i: [%f, %f]', (passes, runs, low, high) => {
    const [l, h] = wilsonInterval(passes, runs);
    expect(l).toBeCloseTo(low, 6);
    expect(h).toBeCloseTo(high, 6);
  });

  it('is [0, 1] with no runs, and always holds the observed rate', () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.nat(), (runs, seed) => {
        const passes = seed % (runs + 1);
        const [l, h] = wilsonInterval(passes, runs);
        return l >= 0 && h <= 1 && l <= passes / runs + 1e-12 && passes / runs <= h + 1e-12;
      }),
    );
  });
});

describe('pass@k and pass^k', () => {
  it.each([
    // 1 − C(7,5)/C(10,5) = 1 − 21/252; C(3,5) = 0.
    [3, 10, 5, 1 - 21 / 252, 0],
    // C(8,5)/C(10,5) = 56/252; 1 − C(2,5)/C(10,5) = 1.
    [8, 10, 5, 1, 56 / 252],
    [4, 4, 4, 1, 1],
    [2, 4, 1, 0.5, 0.5],
    [0, 4, 2, 0, 0],
  ])('%i passes of %i runs, k = %i', (passes, runs, k, at, hat) => {
    expect(passAtK(passes, runs, k)).toBeCloseTo(at, 12);
    expect(passHatK(passes, runs, k)).toBeCloseTo(hat, 12);
  });

  it('are not estimated past the runs, and pass^k ≤ rate ≤ pass@k', () => {
    expect(passAtK(1, 2, 3)).toBeUndefined();
    expect(passHatK(1, 2, 3)).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.nat(), fc.nat(), (runs, a, b) => {
        const passes = a % (runs + 1);
        const k = 1 + (b % runs);
        const rate = passes / runs;
        return (
          passHatK(passes, runs, k)! <= rate + 1e-9 && rate <= passAtK(passes, runs, k)! + 1e-9
        );
      }),
    );
  });
});

describe('fisherOneSided', () => {
  it.each([
    // Fisher's tea tasting: 3/4 against 1/4, one-sided p = 17/70.
    [{ runs: 4, passes: 3 }, { runs: 4, passes: 1 }, 17 / 70],
    [{ runs: 4, passes: 1 }, { runs: 4, passes: 3 }, 17 / 70],
    // A single-run flip is a coin: 0.5.
    [{ runs: 1, passes: 1 }, { runs: 1, passes: 0 }, 0.5],
    // 10/10 → 0/10: 1/C(20,10).
    [{ runs: 10, passes: 10 }, { runs: 10, passes: 0 }, 1 / 184756],
    // R: fisher.test(matrix(c(9, 1, 4, 6), 2), alternative = "greater")$p.value
    [{ runs: 10, passes: 9 }, { runs: 10, passes: 4 }, 0.02863777],
  ])('%j → %j: p = %f', (baseline, candidate, p) => {
    expect(fisherOneSided(baseline, candidate)).toBeCloseTo(p, 7);
  });

  it('is 1 when nothing changed, and symmetric under a swap', () => {
    expect(fisherOneSided({ runs: 3, passes: 1 }, { runs: 6, passes: 2 })).toBe(1);
    expect(directionOf({ runs: 3, passes: 1 }, { runs: 6, passes: 2 })).toBe('same');
    const side = fc
      .tuple(fc.integer({ min: 1, max: 80 }), fc.nat())
      .map(([runs, n]) => ({ runs, passes: n % (runs + 1) }));
    fc.assert(
      fc.property(side, side, (a, b) => {
        const p = fisherOneSided(a, b);
        const swapped = fisherOneSided(b, a);
        const flipped = { down: 'up', up: 'down', same: 'same' }[directionOf(a, b)];
        return p >= 0 && p <= 1 && Math.abs(p - swapped) < 1e-9 && directionOf(b, a) === flipped;
      }),
    );
  });

  it('tests counts past EXACT_RUNS as those counts scaled down to them: a hostile summary of 1e9 runs', () => {
    // From a run summary `compare` reads: the exact test made an array of a number per pass (1e9
    // runs took 7.9 GB). Scaled, the answer is the exact one of the scaled counts.
    const scaledDown = fisherOneSided(
      { runs: 33_333, passes: 33_333 },
      { runs: 66_667, passes: 33_333 },
    );
    expect(fisherOneSided({ runs: 1e9, passes: 1e9 }, { runs: 2e9, passes: 1e9 })).toBe(scaledDown);
    expect(scaledDown).toBeLessThan(1e-6);
    expect(EXACT_RUNS).toBe(100_000);
  });
});

import hypergeometricCdf from '@stdlib/stats-base-dists-hypergeometric-cdf';

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval of a pass rate: `passes` of `runs`, at 95% unless `z` says otherwise.
 * Unlike the normal approximation it stays inside [0, 1] and is honest for few runs (1 of 1 is
 * [0.21, 1], not [1, 1]). With no runs it is [0, 1]: nothing is known.
 */
export function wilsonInterval(passes: number, runs: number, z = Z95): [number, number] {
  if (runs === 0) return [0, 1];
  const p = passes / runs;
  const z2 = z * z;
  const centre = p + z2 / (2 * runs);
  const spread = z * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs));
  const denominator = 1 + z2 / runs;
  return [
    Math.max(0, (centre - spread) / denominator),
    Math.min(1, (centre + spread) / denominator),
  ];
}

/** C(n, k) as a float; 0 when k is outside [0, n]. Exact for the sizes runs reach. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const m = Math.min(k, n - k);
  let result = 1;
  for (let i = 1; i <= m; i++) result = (result * (n - m + i)) / i;
  return result;
}

/**
 * `pass@k`: the chance that at least one of `k` runs drawn without replacement from these `runs`
 * passed, `1 − C(runs − passes, k) / C(runs, k)` (the unbiased estimator of Chen et al., 2021).
 * `undefined` when `k` exceeds the runs: it cannot be estimated from them.
 */
export function passAtK(passes: number, runs: number, k: number): number | undefined {
  if (k < 1 || k > runs) return undefined;
  return 1 - choose(runs - passes, k) / choose(runs, k);
}

/**
 * pass^k: the chance that all of `k` runs drawn without replacement passed,
 * `C(passes, k) / C(runs, k)` (τ-bench's estimator of reliability over repeated trials).
 * `undefined` when `k` exceeds the runs.
 */
export function passHatK(passes: number, runs: number, k: number): number | undefined {
  if (k < 1 || k > runs) return undefined;
  return choose(passes, k) / choose(runs, k);
}

/** Passes of runs, one side of a comparison. */
export interface PassCount {
  runs: number;
  passes: number;
}

/** Whether the candidate's pass rate fell, rose or stayed equal against the baseline's. */
export type Direction = 'down' | 'up' | 'same';

/** The direction of change between two pass rates (runs of 0 compare as no rate: `same`). */
export function directionOf(baseline: PassCount, candidate: PassCount): Direction {
  if (baseline.runs === 0 || candidate.runs === 0) return 'same';
  // Cross-multiplied, so 1/3 against 2/6 is `same` with no rounding.
  const b = baseline.passes * candidate.runs;
  const c = candidate.passes * baseline.runs;
  return c < b ? 'down' : c > b ? 'up' : 'same';
}

/**
 * Fisher's exact test, one-sided in the direction of the change: the chance, were both sides the
 * same agent, of a candidate at least this much worse (`down`) or better (`up`) than the
 * baseline given the total passes. Conditioned on the margins, so it holds for any number of
 * runs, 1 included (1/1 → 0/1 gives 0.5). `same` gives 1.
 */
export function fisherOneSided(observedBaseline: PassCount, observedCandidate: PassCount): number {
  const direction = directionOf(observedBaseline, observedCandidate);
  if (direction === 'same') return 1;
  // The exact test's cost is an array and a step per pass: past EXACT_RUNS runs in all (a run
  // summary is a file anyone may hand `compare`; 1e9 runs took 7.9 GB), both sides are scaled
  // down to them, proportions kept, which only makes the test more cautious.
  const scale = Math.min(1, EXACT_RUNS / (observedBaseline.runs + observedCandidate.runs));
  const baseline = scaled(observedBaseline, scale);
  const candidate = scaled(observedCandidate, scale);
  const population = baseline.runs + candidate.runs;
  const passes = baseline.passes + candidate.passes;
  // The candidate's passes, were the runs assigned to the two sides at random.
  const p =
    direction === 'down'
      ? hypergeometricCdf(candidate.passes, population, passes, candidate.runs)
      : 1 - hypergeometricCdf(candidate.passes - 1, population, passes, candidate.runs);
  return Math.min(1, Math.max(0, p));
}

/** Runs in all up to which {@link fisherOneSided} is exact. */
export const EXACT_RUNS = 100_000;

function scaled(count: PassCount, scale: number): PassCount {
  if (scale === 1) return count;
  const runs = Math.max(1, Math.round(count.runs * scale));
  return { runs, passes: Math.min(runs, Math.round(count.passes * scale)) };
}

/** How a test case × scorer did over its runs. */
export type Stability = 'stable_pass' | 'stable_fail' | 'flaky' | 'no_runs';

/** What a run summary and a trial aggregate say of `passes` of `runs`, with `k` for `pass@k` and `pass^k`. */
export interface PassStatistics {
  /** `passes / runs`; null with no runs. */
  passRate: number | null;
  interval: [number, number];
  passAtK: number | null;
  passHatK: number | null;
  stability: Stability;
}

/** The statistics of `passes` of `runs`, as reports and run summaries give them. */
export function passStatistics(passes: number, runs: number, k: number): PassStatistics {
  return {
    passRate: runs ? passes / runs : null,
    interval: wilsonInterval(passes, runs),
    passAtK: passAtK(passes, runs, k) ?? null,
    passHatK: passHatK(passes, runs, k) ?? null,
    stability:
      runs === 0
        ? 'no_runs'
        : passes === runs
          ? 'stable_pass'
          : passes === 0
            ? 'stable_fail'
            : 'flaky',
  };
}

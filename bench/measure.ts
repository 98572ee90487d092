/** Runs `fn` for `rounds` rounds after a warm-up and returns the median of the per-round rates. */
export function medianRate(
  label: string,
  units: number,
  fn: () => void,
  rounds = 5,
): { label: string; rates: number[]; median: number } {
  fn(); // warm-up: JIT and caches
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(units / seconds);
  }
  return { label, rates, median: median(rates) };
}

/** Async variant of {@link medianRate}. */
export async function medianRateAsync(
  label: string,
  units: number,
  fn: () => Promise<void>,
  rounds = 5,
): Promise<{ label: string; rates: number[]; median: number }> {
  await fn();
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    await fn();
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    rates.push(units / seconds);
  }
  return { label, rates, median: median(rates) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The `q` quantile (0..1) of `values`, nearest rank; NaN when there are none. */
export function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** A small seeded PRNG (mulberry32), so every run generates the same cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The least-squares slope of samples taken once a second, in units per minute, over the samples
 * after `skipSeconds` (start-up and warm-up are not a leak). NaN with fewer than 2 samples.
 */
export function slopePerMinute(samples: readonly number[], skipSeconds = 0): number {
  const ys = samples.slice(skipSeconds);
  const n = ys.length;
  if (n < 2) return NaN;
  const meanX = (n - 1) / 2;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  return (num / den) * 60;
}

/** A count or rate as the reports print it: rounded, with thousands separators (`57,763`). */
export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

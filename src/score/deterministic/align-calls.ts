/**
 * Optimal one-to-one matching of expected calls to actual calls, maximizing the total weight of
 * matched pairs. `weight[i][j]` is the credit for matching expected `i` with actual `j`; a pair
 * with weight `<= 0` never matches. Both return the chosen pairs as `[expected, actual]` indexes.
 */
export type Pair = [expected: number, actual: number];

/**
 * Order-preserving matching (a weighted longest common subsequence): pairs never cross, so a
 * call out of order is unmatched. O(n·m) time and memory.
 */
export function alignInOrder(weight: readonly (readonly number[])[], actualCount: number): Pair[] {
  const n = weight.length;
  const m = actualCount;
  const dp = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const w = weight[i - 1]![j - 1]!;
      let best = Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
      if (w > 0) best = Math.max(best, dp[i - 1]![j - 1]! + w);
      dp[i]![j] = best;
    }
  }
  const pairs: Pair[] = [];
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const w = weight[i - 1]![j - 1]!;
    if (w > 0 && dp[i]![j] === dp[i - 1]![j - 1]! + w) {
      pairs.push([i - 1, j - 1]);
      i--;
      j--;
    } else if (dp[i - 1]![j] === dp[i]![j]) i--;
    else j--;
  }
  return pairs.reverse();
}

/**
 * Order-free matching: the maximum-weight assignment (the Hungarian algorithm, a row per expected
 * call and a column per actual one, O(n²·c) for c = max(n, m)). Greedy pairing gives results that
 * depend on the order of the expected list (confident-ai/deepeval#3338); this does not. The
 * expected side comes from a suite, the actual side from a trace, which anyone may send: the
 * matrix is never padded past its actual columns to a square of them (2,000 calls against one
 * expected cost O(2,000³), 30 s a trace; now O(2,000)). Fewer actual calls than expected are
 * padded with empty columns to a square of the suite's size, as ever, so ties break as they did.
 */
export function alignAnyOrder(weight: readonly (readonly number[])[], actualCount: number): Pair[] {
  const n = weight.length;
  const m = actualCount;
  if (n === 0) return [];
  const c = Math.max(n, m);
  let max = 0;
  for (const row of weight) for (const w of row) if (w > max) max = w;
  // Minimize cost = max - weight; a padded column, or a pair of weight <= 0, costs as much as
  // leaving the row unmatched.
  const cost = (i: number, j: number): number => {
    const w = j < m ? weight[i]![j]! : 0;
    return max - (w > 0 ? w : 0);
  };
  const u = new Float64Array(n + 1);
  const v = new Float64Array(c + 1);
  const p = new Int32Array(c + 1); // p[j]: row matched to column j (1-based), 0 = none
  const way = new Int32Array(c + 1);
  const minv = new Float64Array(c + 1);
  const used = new Uint8Array(c + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    minv.fill(Infinity);
    used.fill(0);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      steps += c;
      for (let j = 1; j <= c; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= c; j++) {
        if (used[j]) {
          u[p[j]!] = u[p[j]!]! + delta;
          v[j] = v[j]! - delta;
        } else minv[j] = minv[j]! - delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const pairs: Pair[] = [];
  for (let j = 1; j <= m; j++) {
    const i = p[j]! - 1;
    if (i >= 0 && weight[i]![j - 1]! > 0) pairs.push([i, j - 1]);
  }
  return pairs.sort((a, b) => a[0] - b[0]);
}

let steps = 0;

/**
 * Columns {@link alignAnyOrder} has scanned since the process began: at most n·(n + 1)·c for n
 * expected calls against c = max(n, m) columns, which tests of hostile traces count.
 */
export function alignAnyOrderSteps(): number {
  return steps;
}

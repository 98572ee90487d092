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
 * Order-free matching: the maximum-weight assignment (Hungarian algorithm, O(k³) for
 * k = max(n, m)). Greedy pairing gives results that depend on the order of the expected list
 * (confident-ai/deepeval#3338); this does not.
 */
export function alignAnyOrder(weight: readonly (readonly number[])[], actualCount: number): Pair[] {
  const n = weight.length;
  const m = actualCount;
  const k = Math.max(n, m);
  if (k === 0) return [];
  let max = 0;
  for (const row of weight) for (const w of row) if (w > max) max = w;
  // Minimize cost = max - weight on a square matrix padded with zero-weight cells.
  const cost = (i: number, j: number): number => {
    const w = i < n && j < m ? weight[i]![j]! : 0;
    return max - (w > 0 ? w : 0);
  };
  const u = new Float64Array(k + 1);
  const v = new Float64Array(k + 1);
  const p = new Int32Array(k + 1); // p[j]: row matched to column j (1-based), 0 = none
  const way = new Int32Array(k + 1);
  for (let i = 1; i <= k; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(k + 1).fill(Infinity);
    const used = new Uint8Array(k + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= k; j++) {
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
      for (let j = 0; j <= k; j++) {
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
  for (let j = 1; j <= k; j++) {
    const i = p[j]! - 1;
    if (i < n && j - 1 < m && weight[i]![j - 1]! > 0) pairs.push([i, j - 1]);
  }
  return pairs.sort((a, b) => a[0] - b[0]);
}

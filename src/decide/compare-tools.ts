import type { ToolRow } from '../results/tool-aggregates.js';
import { directionOf, fisherOneSided } from './trial-statistics.js';

/** What a tool's rate is compared on: calls that failed, or checked calls with invalid arguments. */
export type ToolMetric = 'error_rate' | 'invalid_arguments';

/** One tool's rate on the two sides of a comparison. */
export interface ToolComparison {
  service: string;
  tool: string;
  metric: ToolMetric;
  /** Bad calls (`count`) of calls (`of`) and their rate, per side. */
  baseline: { count: number; of: number; rate: number };
  candidate: { count: number; of: number; rate: number };
  /** One-sided Fisher's exact test in the direction of the change (1 when the rates are equal). */
  pValue: number;
  significant: boolean;
  /** `regressed`: the rate rose significantly; `improved`: it fell significantly. */
  verdict: 'regressed' | 'improved' | 'unchanged';
}

/**
 * Compares each tool's error rate (failed / calls) and invalid-argument rate (invalid / checked)
 * between two sides (two `service.version`s, two windows) with the statistics run summaries are
 * compared with, per service and tool present on both sides with calls to compare. Significant
 * changes first, the regressions before the improvements. Pure.
 */
export function compareTools(
  baseline: readonly ToolRow[],
  candidate: readonly ToolRow[],
  alpha = 0.05,
): ToolComparison[] {
  const key = (r: ToolRow): string => JSON.stringify([r.service, r.tool]);
  const before = new Map(baseline.map(r => [key(r), r]));
  const out: ToolComparison[] = [];
  for (const after of candidate) {
    const base = before.get(key(after));
    if (!base) continue;
    const sides: Array<[ToolMetric, [number, number], [number, number]]> = [
      ['error_rate', [base.errors, base.calls], [after.errors, after.calls]],
      [
        'invalid_arguments',
        [base.invalidArguments, base.checked],
        [after.invalidArguments, after.checked],
      ],
    ];
    for (const [metric, [bBad, bOf], [cBad, cOf]] of sides) {
      if (bOf === 0 || cOf === 0) continue;
      // As pass counts: the good calls of each side.
      const b = { passes: bOf - bBad, runs: bOf };
      const c = { passes: cOf - cBad, runs: cOf };
      const pValue = fisherOneSided(b, c);
      const significant = pValue < alpha;
      const direction = directionOf(b, c);
      out.push({
        service: after.service,
        tool: after.tool,
        metric,
        baseline: { count: bBad, of: bOf, rate: bBad / bOf },
        candidate: { count: cBad, of: cOf, rate: cBad / cOf },
        pValue,
        significant,
        verdict: !significant ? 'unchanged' : direction === 'down' ? 'regressed' : 'improved',
      });
    }
  }
  const order = { regressed: 0, improved: 1, unchanged: 2 };
  return out.sort((a, b) => order[a.verdict] - order[b.verdict] || a.pValue - b.pValue);
}

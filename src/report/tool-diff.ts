import { canonicalToolName } from '../normalize/canonical-tool-name.js';

/** One step of a tool-sequence diff: in both, only expected (missing), or only made (extra). */
export interface ToolDiffStep {
  op: 'same' | 'missing' | 'extra';
  name: string;
}

/**
 * Aligns the expected tool sequence with the calls made (a longest common subsequence of
 * canonical names, so `getWeather` matches `get_weather`), for reports and the results page:
 * calls in both are `same` (spelled as made), expected calls not made are `missing`, calls not
 * expected are `extra`, in sequence order.
 */
export function toolDiff(expected: readonly string[], actual: readonly string[]): ToolDiffStep[] {
  const e = expected.map(n => canonicalToolName(n));
  const a = actual.map(n => canonicalToolName(n));
  // lcs[i][j]: the longest common subsequence of e[i..] and a[j..].
  const lcs = Array.from({ length: e.length + 1 }, () => new Array<number>(a.length + 1).fill(0));
  for (let i = e.length - 1; i >= 0; i--)
    for (let j = a.length - 1; j >= 0; j--)
      lcs[i]![j] =
        e[i] === a[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: ToolDiffStep[] = [];
  let i = 0;
  let j = 0;
  while (i < e.length || j < a.length) {
    if (i < e.length && j < a.length && e[i] === a[j]) {
      out.push({ op: 'same', name: actual[j]! });
      i++;
      j++;
    } else if (j < a.length && (i === e.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push({ op: 'extra', name: actual[j++]! });
    } else out.push({ op: 'missing', name: expected[i++]! });
  }
  return out;
}

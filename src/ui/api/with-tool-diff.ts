import { toolDiff, type ToolDiffStep } from '../../report/tool-diff.js';
import type { StoredResult } from '../../results/stored-result.js';

/** A result as the API returns it: with the expected-vs-actual tool diff when it expects tools. */
export function withToolDiff(r: StoredResult): StoredResult & { toolDiff: ToolDiffStep[] | null } {
  return { ...r, toolDiff: r.expectedTools ? toolDiff(r.expectedTools, r.toolSequence) : null };
}

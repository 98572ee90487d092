import type { FailureSignatureRow, FailureSignatures } from '../results/summarize-failures.js';

/** A failure signature the candidate has and the baseline had not. */
export interface NewFailureSignature extends FailureSignatureRow {
  /**
   * The baseline's failures of the same service and tool that no listed signature holds (past its
   * bounds, counted as `other`): the signature may hide among them. 0: it is certainly new.
   */
  baselineOther: number;
}

/**
 * The failure signatures of `candidate` absent from `baseline` (the same service, tool and
 * normalized error text), most counted first: what fails in a new way on the candidate side of a
 * comparison (a new `service.version`, or the later window). Pure.
 */
export function newFailureSignatures(
  baseline: Pick<FailureSignatures, 'signatures' | 'other'>,
  candidate: Pick<FailureSignatures, 'signatures'>,
): NewFailureSignature[] {
  const key = (r: { service: string; tool: string }, signature = ''): string =>
    JSON.stringify([r.service, r.tool, signature]);
  const before = new Set(baseline.signatures.map(r => key(r, r.signature)));
  const other = new Map(baseline.other.map(o => [key(o), o.count]));
  return candidate.signatures
    .filter(r => !before.has(key(r, r.signature)))
    .map(r => ({ ...r, baselineOther: other.get(key(r)) ?? 0 }));
}

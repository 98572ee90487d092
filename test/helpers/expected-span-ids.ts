import { createHash } from 'node:crypto';

/**
 * An evaluation span's id as docs/results-and-dashboards.md specifies it (the first 16 hex digits
 * of the SHA-256 of trace id, scorer and test case id, NUL-separated), computed here from that
 * text rather than by the code under test, so the fault suites check the spans they receive
 * against the documented derivation.
 */
export function documentedSpanId(traceId: string, scorer: string, testCaseId: string): string {
  return createHash('sha256')
    .update(`${traceId}\u0000${scorer}\u0000${testCaseId}`)
    .digest('hex')
    .slice(0, 16);
}

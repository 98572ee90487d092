import {
  MAX_EXAMPLE_TRACES,
  MAX_SIGNATURES_PER_TOOL,
  OTHER_SIGNATURE,
  type SignatureCount,
} from './failure-signature-minutes.js';

/** Versions listed per signature: the latest seen. */
export const MAX_VERSIONS_PER_SIGNATURE = 10;

/** What failure signatures may be narrowed to. */
export interface FailuresFilter {
  service?: string;
  /** The evaluated traces' `service.version`. */
  version?: string;
  tool?: string;
}

/** One failure signature of one service's tool over a window. */
export interface FailureSignatureRow {
  service: string;
  tool: string;
  /** The normalized error text (see `failureSignature`). */
  signature: string;
  /** Failed and refused calls with this signature: `errors + refused`. */
  count: number;
  errors: number;
  refused: number;
  /** When the first and the last of them were counted (their traces scored), Unix ms. */
  firstSeenUnixMs: number;
  lastSeenUnixMs: number;
  /** The `service.version`s seen failing so, the latest first, at most 10. */
  versions: string[];
  /** Traces that failed so, the newest first, at most 3. */
  exampleTraceIds: string[];
}

/** Failures of one service's tool that no listed signature holds (past the bounds). */
export interface OtherFailures {
  service: string;
  tool: string;
  count: number;
  errors: number;
  refused: number;
}

/** `GET /api/v1/tools/<tool>/failures`, and what compare reads of each side. */
export interface FailureSignatures {
  fromUnixMs: number;
  toUnixMs: number;
  /** By count, most first; at most 20 per service and tool. */
  signatures: FailureSignatureRow[];
  /** Per service and tool, the failures counted as `other`: past 20 signatures, or the bytes. */
  other: OtherFailures[];
  /**
   * Set when the store no longer holds the start of the window (the memory store drops its
   * oldest minutes of signatures past its byte bound): signatures are counted from then on.
   */
  heldSinceUnixMs: number | null;
}

interface Sum {
  service: string;
  tool: string;
  signature: string;
  errors: number;
  refused: number;
  first: number;
  last: number;
  /** Version → when last seen. */
  versions: Map<string, number>;
  traceIds: string[];
}

/**
 * Builds the failure signatures of `[fromUnixMs, toUnixMs]` from its minutes (each process's
 * minutes of one window summed, in any order): per service, tool and signature, the counts, the
 * first and last time, versions and example traces; per service and tool, the 20 most counted are
 * listed and the rest (with what was counted as `other`) summed in `other`. Counts taken back by a
 * rescore are subtracted; a signature left with none is not listed. Pure.
 */
export function summarizeFailures(
  minutes: Iterable<{ minuteUnixMs: number; signatures: Iterable<SignatureCount> }>,
  fromUnixMs: number,
  toUnixMs: number,
  filter: FailuresFilter = {},
  heldSinceUnixMs: number | null = null,
): FailureSignatures {
  const sums = new Map<string, Sum>();
  const ordered = [...minutes].sort((a, b) => a.minuteUnixMs - b.minuteUnixMs);
  for (const { signatures } of ordered)
    for (const e of signatures) {
      if (filter.service !== undefined && e.service !== filter.service) continue;
      if (filter.version !== undefined && e.version !== filter.version) continue;
      if (filter.tool !== undefined && e.tool !== filter.tool) continue;
      const key = JSON.stringify([e.service, e.tool, e.signature]);
      let sum = sums.get(key);
      if (!sum) {
        const { service, tool, signature } = e;
        sum = {
          service,
          tool,
          signature,
          errors: 0,
          refused: 0,
          first: 0,
          last: 0,
          versions: new Map(),
          traceIds: [],
        };
        sums.set(key, sum);
      }
      sum.errors += e.errors;
      sum.refused += e.refused;
      if (e.firstUnixMs > 0 && (sum.first === 0 || e.firstUnixMs < sum.first))
        sum.first = e.firstUnixMs;
      if (e.lastUnixMs > sum.last) sum.last = e.lastUnixMs;
      if (e.lastUnixMs > 0 && e.lastUnixMs >= (sum.versions.get(e.version) ?? 0))
        sum.versions.set(e.version, e.lastUnixMs);
      // Minutes oldest first: the examples kept are the newest.
      for (const id of e.traceIds) {
        const at = sum.traceIds.indexOf(id);
        if (at >= 0) sum.traceIds.splice(at, 1);
        sum.traceIds.push(id);
        if (sum.traceIds.length > MAX_EXAMPLE_TRACES) sum.traceIds.shift();
      }
    }

  const byTool = new Map<string, Sum[]>();
  for (const sum of sums.values()) {
    if (sum.errors + sum.refused <= 0) continue;
    const key = JSON.stringify([sum.service, sum.tool]);
    let list = byTool.get(key);
    if (!list) byTool.set(key, (list = []));
    list.push(sum);
  }
  const signatures: FailureSignatureRow[] = [];
  const other: OtherFailures[] = [];
  for (const list of byTool.values()) {
    list.sort(byCount);
    const rest = {
      service: list[0]!.service,
      tool: list[0]!.tool,
      count: 0,
      errors: 0,
      refused: 0,
    };
    let listed = 0;
    for (const sum of list) {
      if (sum.signature !== OTHER_SIGNATURE && listed < MAX_SIGNATURES_PER_TOOL) {
        listed++;
        signatures.push(row(sum));
        continue;
      }
      rest.errors += Math.max(0, sum.errors);
      rest.refused += Math.max(0, sum.refused);
      rest.count = rest.errors + rest.refused;
    }
    if (rest.count > 0) other.push(rest);
  }
  signatures.sort(
    (a, b) =>
      b.count - a.count ||
      b.lastSeenUnixMs - a.lastSeenUnixMs ||
      a.service.localeCompare(b.service) ||
      a.tool.localeCompare(b.tool) ||
      a.signature.localeCompare(b.signature),
  );
  other.sort((a, b) => b.count - a.count || a.tool.localeCompare(b.tool));
  return {
    fromUnixMs,
    toUnixMs,
    signatures,
    other,
    heldSinceUnixMs:
      heldSinceUnixMs !== null && heldSinceUnixMs > fromUnixMs ? heldSinceUnixMs : null,
  };
}

function byCount(a: Sum, b: Sum): number {
  return (
    b.errors + b.refused - (a.errors + a.refused) ||
    b.last - a.last ||
    a.signature.localeCompare(b.signature)
  );
}

function row(sum: Sum): FailureSignatureRow {
  const errors = Math.max(0, sum.errors);
  const refused = Math.max(0, sum.refused);
  return {
    service: sum.service,
    tool: sum.tool,
    signature: sum.signature,
    count: errors + refused,
    errors,
    refused,
    firstSeenUnixMs: sum.first,
    lastSeenUnixMs: sum.last,
    versions: [...sum.versions]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([version]) => version)
      .filter(version => version !== '')
      .slice(0, MAX_VERSIONS_PER_SIGNATURE),
    exampleTraceIds: [...sum.traceIds].reverse(),
  };
}

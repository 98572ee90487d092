import { boundedNames } from './bounded-names.js';
import type { CallOutcome } from './call-outcomes.js';
import { failureSignature } from './failure-signature.js';
import { MINUTE_MS, minuteOf } from './minute-aggregates.js';
import type { ToolNameBounds } from './tool-aggregates.js';

/** Signatures a minute keeps apart per service and tool (in one process); the rest is `other`. */
export const MAX_SIGNATURES_PER_TOOL = 20;

/** Example trace ids a signature keeps per minute: the newest. */
export const MAX_EXAMPLE_TRACES = 3;

/**
 * Characters a minute's signatures may hold (in one process), counted as their JSON holds them;
 * past it, new signatures of the minute count as `other`.
 */
export const MAX_MINUTE_CHARS = 128 * 1024;

/** The signature failures past the bounds count under: no normalized text is empty. */
export const OTHER_SIGNATURE = '';

/** A trace id longer than this is never kept as an example (a decoded one has 32 characters). */
const MAX_TRACE_ID_CHARS = 64;

/** What an entry costs beyond its names: its counts, times and examples, as JSON. */
const ENTRY_CHARS = 48 + MAX_EXAMPLE_TRACES * (MAX_TRACE_ID_CHARS + 3);

/** One signature's failures of one service version's tool in one minute. */
export interface SignatureCount {
  service: string;
  version: string;
  tool: string;
  /** The normalized error text (`failureSignature`); {@link OTHER_SIGNATURE} past the bounds. */
  signature: string;
  /** Calls that ran and failed, and calls refused (negative: taken back by a rescore). */
  errors: number;
  refused: number;
  /** When the first and last of them were counted, Unix ms; 0 when none was counted here. */
  firstUnixMs: number;
  lastUnixMs: number;
  /** Traces they were made in, newest last, at most {@link MAX_EXAMPLE_TRACES}. */
  traceIds: string[];
}

interface Minute {
  entries: Map<string, SignatureCount>;
  /** Per service and tool (`service␟tool`), the signatures kept apart. */
  kept: Map<string, Set<string>>;
  chars: number;
}

/**
 * Failure signatures per minute, the same in both stores: each failed or refused call is counted
 * under its service, version, tool and signature, in the minute its pass counted its calls (the
 * per-tool counters' minute, see `toolsCountedAt`), with first and last time and a few example
 * traces. Service, tool and version names are bounded as the per-tool counters bound them (the
 * same `ToolNameBounds`, fed the same calls in the same order, so both say `other` alike); per
 * minute, {@link MAX_SIGNATURES_PER_TOOL} signatures per service and tool and
 * {@link MAX_MINUTE_CHARS} characters, past which a new signature counts as `other`.
 *
 * The memory store keeps every minute of its retention here (`keepMs`), within `maxHeldChars`
 * (past it, its oldest minutes go: see {@link FailureSignatureMinutes.droppedBeforeUnixMs}); the
 * Redis store keeps its recent minutes until it has written them. Pure: no I/O.
 */
export class FailureSignatureMinutes {
  private readonly minutes = new Map<number, Minute>();
  private readonly services: (group: string, name: string) => string;
  private readonly tools: (group: string, name: string) => string;
  private readonly versions: (group: string, name: string) => string;
  private heldChars = 0;
  private prunedAt = 0;
  private droppedBefore = 0;

  constructor(
    bounds: ToolNameBounds,
    private readonly options: {
      /** Characters held over all minutes; past it, the oldest minutes are dropped. */
      maxHeldChars?: number;
      /** Minutes older than this are dropped as new ones start, and not counted in. */
      keepMs?: number;
      /**
       * A take-back into a minute not held counts there all the same (the Redis store: what it
       * counted is in Redis); else it is left out (the memory store dropped what it took back).
       */
      takeBackUnheld?: boolean;
      now?: () => number;
    } = {},
  ) {
    this.services = boundedNames(bounds.maxServices);
    this.tools = boundedNames(bounds.maxToolsPerService);
    this.versions = boundedNames(bounds.maxToolsPerService);
  }

  /**
   * Counts the failed and refused ones of `calls` (every call of a pass, in order, so that names
   * are bounded as the per-tool counters bound them) at `atUnixMs`; `sign` -1 takes back what a
   * pass counted (examples and times stay). Returns the minute it counted in, if it counted.
   */
  count(calls: readonly CallOutcome[], atUnixMs: number, sign: 1 | -1 = 1): number | undefined {
    let counted: number | undefined;
    const minute = minuteOf(atUnixMs);
    const { keepMs, now = Date.now, takeBackUnheld = false } = this.options;
    // Names are bounded for every call all the same, as the per-tool counters bound them.
    const skip =
      (keepMs !== undefined && atUnixMs < now() - keepMs) ||
      (sign < 0 && !takeBackUnheld && !this.minutes.has(minute));
    for (const call of calls) {
      const service = this.services('', call.service);
      const version = this.versions(service, call.version);
      const tool = this.tools(service, call.tool);
      if (call.outcome === 'ok' || skip) continue;
      const m = this.minute(minute);
      const entry = this.entry(m, service, version, tool, failureSignature(call.error));
      if (call.outcome === 'error') entry.errors += sign;
      else entry.refused += sign;
      counted = minute;
      if (sign < 0) continue;
      if (entry.firstUnixMs === 0 || atUnixMs < entry.firstUnixMs) entry.firstUnixMs = atUnixMs;
      if (atUnixMs > entry.lastUnixMs) entry.lastUnixMs = atUnixMs;
      const id = call.traceId;
      if (id && id.length <= MAX_TRACE_ID_CHARS && !entry.traceIds.includes(id)) {
        entry.traceIds.push(id);
        if (entry.traceIds.length > MAX_EXAMPLE_TRACES) entry.traceIds.shift();
      }
    }
    if (counted !== undefined) this.bound(counted);
    return counted;
  }

  /** The signatures of the minute starting at `minuteUnixMs` (none when it is not held). */
  signatures(minuteUnixMs: number): Iterable<SignatureCount> {
    return this.minutes.get(minuteUnixMs)?.entries.values() ?? [];
  }

  /** The minutes held within `[fromUnixMs, toUnixMs]`, oldest first. */
  minutesIn(
    fromUnixMs: number,
    toUnixMs: number,
  ): Array<{ minuteUnixMs: number; signatures: Iterable<SignatureCount> }> {
    const from = minuteOf(fromUnixMs);
    return [...this.minutes.keys()]
      .filter(m => m >= from && m <= toUnixMs)
      .sort((a, b) => a - b)
      .map(m => ({ minuteUnixMs: m, signatures: this.signatures(m) }));
  }

  /** Forgets a minute (the Redis store, once it has written it). */
  delete(minuteUnixMs: number): void {
    const m = this.minutes.get(minuteUnixMs);
    if (!m) return;
    this.heldChars -= m.chars;
    this.minutes.delete(minuteUnixMs);
  }

  /** The minutes held, in no order. */
  heldMinutes(): number[] {
    return [...this.minutes.keys()];
  }

  /**
   * Where the minutes `maxHeldChars` made room by dropping end: signatures counted before it are
   * gone; 0 when none was dropped.
   */
  get droppedBeforeUnixMs(): number {
    return this.droppedBefore;
  }

  /** The minute's signatures as JSON (`parseSignatureMinute` reads it back). */
  toJSON(minuteUnixMs: number): string {
    return JSON.stringify(
      [...this.signatures(minuteUnixMs)].map(e => [
        e.service,
        e.version,
        e.tool,
        e.signature,
        e.errors,
        e.refused,
        e.firstUnixMs,
        e.lastUnixMs,
        e.traceIds,
      ]),
    );
  }

  private minute(minuteUnixMs: number): Minute {
    let m = this.minutes.get(minuteUnixMs);
    if (!m) {
      this.prune();
      this.minutes.set(minuteUnixMs, (m = { entries: new Map(), kept: new Map(), chars: 0 }));
    }
    return m;
  }

  private entry(
    m: Minute,
    service: string,
    version: string,
    tool: string,
    text: string,
  ): SignatureCount {
    const toolKey = `${service}\u001f${tool}`;
    let kept = m.kept.get(toolKey);
    if (!kept) m.kept.set(toolKey, (kept = new Set()));
    let signature = text;
    if (!kept.has(signature)) {
      if (kept.size >= MAX_SIGNATURES_PER_TOOL || m.chars + costOf(text) > MAX_MINUTE_CHARS)
        signature = OTHER_SIGNATURE;
      else kept.add(signature);
    }
    const key = JSON.stringify([service, version, tool, signature]);
    let entry = m.entries.get(key);
    if (!entry) {
      const base = { service, version, tool, signature, errors: 0, refused: 0 };
      entry = { ...base, firstUnixMs: 0, lastUnixMs: 0, traceIds: [] };
      m.entries.set(key, entry);
      const cost = key.length + ENTRY_CHARS;
      m.chars += cost;
      this.heldChars += cost;
    }
    return entry;
  }

  /** Drops the minutes past `keepMs`, once a minute. */
  private prune(): void {
    const { keepMs, now = Date.now } = this.options;
    if (keepMs === undefined) return;
    const current = minuteOf(now());
    if (current === this.prunedAt) return;
    this.prunedAt = current;
    const oldest = minuteOf(now() - keepMs);
    for (const m of this.heldMinutes()) if (m < oldest) this.delete(m);
  }

  /** Drops the oldest minutes while more than `maxHeldChars` are held, never `keep`. */
  private bound(keep: number): void {
    const max = this.options.maxHeldChars ?? Infinity;
    while (this.heldChars > max && this.minutes.size > 1) {
      const oldest = Math.min(...this.heldMinutes().filter(m => m !== keep));
      this.delete(oldest);
      this.droppedBefore = Math.max(this.droppedBefore, oldest + MINUTE_MS);
    }
  }
}

/** What a new signature would cost a minute: at most its text and an entry, for every version. */
function costOf(signature: string): number {
  return signature.length + ENTRY_CHARS;
}

/**
 * A minute's signatures from their JSON (`FailureSignatureMinutes#toJSON`); entries of another
 * shape are skipped, and so is text that is not JSON.
 */
export function parseSignatureMinute(json: string): SignatureCount[] {
  let rows: unknown;
  try {
    rows = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(rows)) return [];
  const out: SignatureCount[] = [];
  for (const row of rows as unknown[]) {
    if (!Array.isArray(row) || row.length !== 9) continue;
    const [service, version, tool, signature, errors, refused, first, last, traceIds] =
      row as unknown[];
    if (
      typeof service !== 'string' ||
      typeof version !== 'string' ||
      typeof tool !== 'string' ||
      typeof signature !== 'string' ||
      !Number.isFinite(errors) ||
      !Number.isFinite(refused) ||
      !Number.isFinite(first) ||
      !Number.isFinite(last) ||
      !Array.isArray(traceIds) ||
      !traceIds.every((id: unknown) => typeof id === 'string')
    )
      continue;
    out.push({
      service,
      version,
      tool,
      signature,
      errors: errors as number,
      refused: refused as number,
      firstUnixMs: first as number,
      lastUnixMs: last as number,
      traceIds: traceIds.slice(-MAX_EXAMPLE_TRACES),
    });
  }
  return out;
}

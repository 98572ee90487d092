import { randomBytes } from 'node:crypto';
import type { CallOutcome } from '../results/call-outcomes.js';
import {
  FailureSignatureMinutes,
  parseSignatureMinute,
  type SignatureCount,
} from '../results/failure-signature-minutes.js';
import { MINUTE_MS } from '../results/minute-aggregates.js';
import type { ToolNameBounds } from '../results/tool-aggregates.js';
import type { RedisClient } from './redis-connection.js';

/** How often a process writes the minutes of signatures it changed. */
const FLUSH_MS = 1000;
/** A minute stays in the process this long after it ended (as the minute counters do). */
const KEEP_MINUTES_MS = 10 * 60_000;

/**
 * The results store's failure signatures in Redis, kept as its per-minute counters are (see
 * `RedisMinuteCounters`): `<key of minute>` is a hash with one field per writing process (`@<id>`:
 * its signatures of the minute as JSON, `FailureSignatureMinutes#toJSON`, rewritten with each
 * flush), expiring `ttlMs` after the minute. A process counts in memory (bounded per minute: see
 * `FailureSignatureMinutes`) and writes the minutes that changed once a second, in one MULTI;
 * it keeps a minute until ten minutes after it ended, and a count for it after that goes to a
 * field of its own, so that nothing written before is overwritten. Readers sum every field.
 */
export class RedisFailureSignatures {
  private readonly writer = `@${randomBytes(6).toString('hex')}`;
  private generation = 0;
  private readonly minutes: FailureSignatureMinutes;
  /** The field each minute held here is written to, and whether it changed since. */
  private readonly fields = new Map<number, { field: string; dirty: boolean }>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keyOf: (minuteUnixMs: number) => string,
    bounds: ToolNameBounds,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly onError?: (error: Error) => void,
  ) {
    this.minutes = new FailureSignatureMinutes(bounds, { takeBackUnheld: true, now });
  }

  /**
   * Counts a pass's failed and refused calls (`sign` -1: takes back a replaced pass's) at
   * `atUnixMs`; written within a second.
   */
  count(calls: readonly CallOutcome[], atUnixMs: number, sign: 1 | -1 = 1): void {
    const minute = this.minutes.count(calls, atUnixMs, sign);
    if (minute === undefined) return;
    let f = this.fields.get(minute);
    if (!f) {
      // A minute this process let go of and counts again: a field of its own.
      const recent = minute >= this.now() - KEEP_MINUTES_MS - MINUTE_MS;
      f = { field: recent ? this.writer : `${this.writer}.${++this.generation}`, dirty: false };
      this.fields.set(minute, f);
    }
    f.dirty = true;
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes the minutes that changed (one MULTI); a failed write is tried again a second later. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      const dirty = [...this.fields].filter(([, f]) => f.dirty);
      if (dirty.length > 0) {
        const tx = this.redis.multi();
        for (const [minute, f] of dirty) {
          f.dirty = false;
          tx.hset(this.keyOf(minute), f.field, this.minutes.toJSON(minute));
          tx.pexpire(this.keyOf(minute), this.ttlMs + MINUTE_MS);
        }
        try {
          await tx.exec();
        } catch (error) {
          for (const [, f] of dirty) f.dirty = true;
          this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
          this.onError?.(error as Error);
        }
      }
      const oldest = this.now() - KEEP_MINUTES_MS - MINUTE_MS;
      for (const [minute, f] of this.fields)
        if (minute < oldest && !f.dirty) {
          this.fields.delete(minute);
          this.minutes.delete(minute);
        }
    });
    return this.flushing;
  }

  /** The signatures of the minutes starting at each of `minutesUnixMs`, every writer's (one pipeline). */
  async read(
    minutesUnixMs: readonly number[],
  ): Promise<Array<{ minuteUnixMs: number; signatures: SignatureCount[] }>> {
    const pipeline = this.redis.pipeline();
    for (const m of minutesUnixMs) pipeline.hgetall(this.keyOf(m));
    const replies = (await pipeline.exec()) ?? [];
    return minutesUnixMs.map((minuteUnixMs, i) => {
      const [error, hash] = replies[i] ?? [];
      if (error) throw error;
      const fields = Object.values((hash ?? {}) as Record<string, string>);
      return { minuteUnixMs, signatures: fields.flatMap(parseSignatureMinute) };
    });
  }
}

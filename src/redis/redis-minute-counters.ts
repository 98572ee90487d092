import { randomBytes } from 'node:crypto';
import { MINUTE_MS } from '../results/minute-aggregates.js';
import type { RedisClient } from './redis-connection.js';

/** How often a process writes its per-minute counters. */
const FLUSH_MS = 1000;
/** A minute's counters stay in the process this long after it ended, then they are final. */
const KEEP_MINUTES_MS = 10 * 60_000;

/**
 * The results store's per-minute counters in Redis: `<key of minute>` is a hash with one field per
 * writing process (`@<id>`: its counts of the minute as JSON, rewritten with each flush), expiring
 * `ttlMs` after the minute. A process counts in memory and flushes the minutes that changed once
 * a second (two commands a minute touched, whatever the traffic); a minute is kept in memory until
 * ten minutes after it ended, and a count for it after that goes to a field of its own, so nothing
 * written before is overwritten. A crashed process loses its last second of counts.
 */
export class RedisMinuteCounters {
  private readonly writer = `@${randomBytes(6).toString('hex')}`;
  private generation = 0;
  private readonly minutes = new Map<
    number,
    { field: string; counts: Map<string, number>; dirty: boolean }
  >();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keyOf: (minuteUnixMs: number) => string,
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly onError?: (error: Error) => void,
  ) {}

  /** Adds `by` to `field` of the minute starting at `minuteUnixMs`; written within a second. */
  count(minuteUnixMs: number, field: string, by: number): void {
    let m = this.minutes.get(minuteUnixMs);
    if (!m) {
      // A minute this process let go of (KEEP_MINUTES_MS) and counts again: a field of its own,
      // not to overwrite what it wrote before.
      const recent = minuteUnixMs >= this.now() - KEEP_MINUTES_MS - MINUTE_MS;
      m = {
        field: recent ? this.writer : `${this.writer}.${++this.generation}`,
        counts: new Map(),
        dirty: false,
      };
      this.minutes.set(minuteUnixMs, m);
    }
    m.counts.set(field, (m.counts.get(field) ?? 0) + by);
    m.dirty = true;
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes the minutes that changed (one MULTI); a failed write is tried again a second later. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = this.flushing.then(async () => {
      const dirty = [...this.minutes].filter(([, m]) => m.dirty);
      if (dirty.length === 0) return;
      const tx = this.redis.multi();
      for (const [minute, m] of dirty) {
        m.dirty = false;
        tx.hset(this.keyOf(minute), m.field, JSON.stringify(Object.fromEntries(m.counts)));
        tx.pexpire(this.keyOf(minute), this.ttlMs + MINUTE_MS);
      }
      try {
        await tx.exec();
      } catch (error) {
        for (const [, m] of dirty) m.dirty = true;
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
        this.onError?.(error as Error);
      }
      const oldest = this.now() - KEEP_MINUTES_MS - MINUTE_MS;
      for (const [minute, m] of this.minutes)
        if (minute < oldest && !m.dirty) this.minutes.delete(minute);
    });
    return this.flushing;
  }

  /** The minutes starting at each of `minutesUnixMs`, every writer's counts summed (one pipeline). */
  async read(
    minutesUnixMs: readonly number[],
  ): Promise<Array<{ minuteUnixMs: number; fields: Map<string, number> }>> {
    const pipeline = this.redis.pipeline();
    for (const m of minutesUnixMs) pipeline.hgetall(this.keyOf(m));
    const replies = (await pipeline.exec()) ?? [];
    return minutesUnixMs.map((minuteUnixMs, i) => {
      const [error, hash] = replies[i] ?? [];
      if (error) throw error;
      return { minuteUnixMs, fields: sumMinute(hash as Record<string, string>) };
    });
  }
}

/** A minute hash's fields summed: each process's counts (`@…`: JSON), and plain counters. */
function sumMinute(hash: Record<string, string>): Map<string, number> {
  const fields = new Map<string, number>();
  const add = (k: string, v: number): void => void fields.set(k, (fields.get(k) ?? 0) + v);
  for (const [k, v] of Object.entries(hash ?? {})) {
    if (k.startsWith('@'))
      for (const [f, n] of Object.entries(JSON.parse(v) as Record<string, number>)) add(f, n);
    else add(k, Number(v));
  }
  return fields;
}

import { minuteOf, type AddIncrement } from './minute-aggregates.js';

/**
 * The memory results store's per-minute counters: for each minute (`minuteOf`), a field's count.
 * A minute is started when something is first counted in it, and starting one drops the minutes
 * past `retentionMs` (nothing else does). Fields are bounded by their writers (the incrementers'
 * bounded names), minutes by the retention.
 */
export class MemoryMinuteCounters {
  private readonly minutes = new Map<number, Map<string, number>>();

  constructor(
    private readonly retentionMs: number,
    private readonly now: () => number,
  ) {}

  /** Adds `by` to `field` of `minute`'s counters (`minuteOf`, worked out once a pass). */
  bump(minute: number, field: string, by: number): void {
    const fields = this.fieldsOf(minute);
    fields.set(field, (fields.get(field) ?? 0) + by);
  }

  /**
   * {@link MemoryMinuteCounters.bump} into one minute for an incrementer's call: its counters
   * looked up at the first increment, then held (a minute is a heap number, hashed per lookup).
   * Only a new minute drops one, and no incrementer call starts two.
   */
  at(minute: number): AddIncrement {
    let fields: Map<string, number> | undefined;
    return (field, by) => {
      fields ??= this.fieldsOf(minute);
      fields.set(field, (fields.get(field) ?? 0) + by);
    };
  }

  /** The minutes from `fromUnixMs`'s to `toUnixMs`, with their counters (the maps themselves). */
  in(
    fromUnixMs: number,
    toUnixMs: number,
  ): { minuteUnixMs: number; fields: Map<string, number> }[] {
    const from = minuteOf(fromUnixMs);
    return [...this.minutes]
      .filter(([m]) => m >= from && m <= toUnixMs)
      .map(([minuteUnixMs, fields]) => ({ minuteUnixMs, fields }));
  }

  /** The counters of `minute`, started (and the minutes past retention dropped) when new. */
  private fieldsOf(minute: number): Map<string, number> {
    let fields = this.minutes.get(minute);
    if (!fields) {
      this.minutes.set(minute, (fields = new Map<string, number>()));
      const oldest = minuteOf(this.now() - this.retentionMs);
      for (const m of this.minutes.keys()) if (m < oldest) this.minutes.delete(m);
    }
    return fields;
  }
}

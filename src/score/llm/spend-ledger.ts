/**
 * Judge spend per UTC day, in US dollars. In memory for one process (this file) or in Redis with
 * the BullMQ driver (`RedisSpendLedger`), where every worker adds to the same total.
 */
export interface SpendLedger {
  /** Dollars spent on `day` (`YYYY-MM-DD`, UTC). */
  spent(day: string): Promise<number>;
  /** Adds `usd` to `day` and resolves with the new total. */
  add(day: string, usd: number): Promise<number>;
}

/** A {@link SpendLedger} in this process; it keeps the last few days only. */
export function createMemorySpendLedger(): SpendLedger {
  const days = new Map<string, number>();
  return {
    spent: day => Promise.resolve(days.get(day) ?? 0),
    add(day, usd) {
      const total = (days.get(day) ?? 0) + usd;
      days.set(day, total);
      for (const key of days.keys()) if (key < day && days.size > 3) days.delete(key);
      return Promise.resolve(total);
    },
  };
}

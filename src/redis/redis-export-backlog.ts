import type { RedisClient } from './redis-connection.js';
import type { ExportBacklog } from '../emit/export-backlog.js';

/** How long a process trusts its last look at whether anything is failing. */
const CHECK_MS = 1000;

/**
 * Trace ids whose removal failed (Redis away right then) kept in the process to remove again; past
 * this many the oldest are let go, and age out of the set instead (`maxAgeMs`).
 */
export const MAX_UNREMOVED = 1024;

/** Options of {@link createRedisExportBacklog}. */
export interface RedisExportBacklogOptions {
  /**
   * Entries older than this are dropped when the backlog is read: no export is retried that long
   * after its first failure (`exportBacklogMaxAgeMs` of the config).
   */
  maxAgeMs: number;
  now?: () => number;
}

/**
 * The BullMQ driver's export backlog: a sorted set `<prefix>:exports:{b}:failing` of trace ids
 * scored by their first failure (`ZADD NX`), shared by every worker. A successful export removes
 * its trace only while something is failing: each process looks (`ZCARD`) at most once a second
 * and at once after a failure of its own, so a healthy pipeline pays no command per trace.
 *
 * A removal that fails (Redis away as the export settles) is not lost: its trace id is kept (at
 * most {@link MAX_UNREMOVED}) and removed with the next removal or read of the backlog that
 * Redis answers; one this process could not keep (it stopped, or too many) ages out at
 * `maxAgeMs`. Before, it stayed counted as waiting for seven days, and
 * `spanscore_export_oldest_pending_seconds` grew all that time.
 */
export function createRedisExportBacklog(
  redis: RedisClient,
  prefix: string,
  options: RedisExportBacklogOptions,
): ExportBacklog {
  const key = `${prefix}:exports:{b}:failing`;
  const now = options.now ?? Date.now;
  let anyFailing = false;
  let checkedAt = 0;
  // Insertion order: the oldest first, let go first past MAX_UNREMOVED.
  const unremoved = new Set<string>();
  const mayBeFailing = async (): Promise<boolean> => {
    if (now() - checkedAt > CHECK_MS) {
      checkedAt = now();
      anyFailing = (await redis.zcard(key)) > 0;
    }
    return anyFailing;
  };
  const remember = (traceId: string): void => {
    unremoved.delete(traceId);
    unremoved.add(traceId);
    if (unremoved.size > MAX_UNREMOVED) unremoved.delete(unremoved.values().next().value!);
  };
  /** Removes `traceId` (if given) and every id kept from a failed removal, in one `ZREM`. */
  const remove = async (traceId?: string): Promise<void> => {
    const retried = [...unremoved];
    const ids = traceId === undefined ? retried : [traceId, ...retried];
    if (ids.length === 0) return;
    try {
      await redis.zrem(key, ...ids);
    } catch (error) {
      if (traceId !== undefined) remember(traceId);
      throw error;
    }
    for (const id of retried) unremoved.delete(id);
  };
  return {
    async failed(traceId) {
      anyFailing = true;
      checkedAt = now();
      unremoved.delete(traceId);
      await redis.zadd(key, 'NX', now(), traceId);
    },
    async settled(traceId) {
      let failing: boolean;
      try {
        failing = unremoved.size > 0 || (await mayBeFailing());
      } catch (error) {
        // Whether anything is failing is unknown: removed later, to be sure.
        remember(traceId);
        throw error;
      }
      if (failing) await remove(traceId);
    },
    async stats() {
      await remove();
      await redis.zremrangebyscore(key, '-inf', now() - options.maxAgeMs);
      const [waiting, oldest] = await Promise.all([
        redis.zcard(key),
        redis.zrange(key, 0, 0, 'WITHSCORES'),
      ]);
      return {
        waiting,
        oldestAgeSeconds: oldest[1] === undefined ? 0 : (now() - Number(oldest[1])) / 1000,
      };
    },
  };
}

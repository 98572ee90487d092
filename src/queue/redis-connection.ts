import { Redis } from 'ioredis';

/** How long a span-buffer command may take before the receiver gives up and answers 503. */
const COMMAND_TIMEOUT_MS = 3000;

/**
 * Opens a Redis connection for one role. BullMQ's queues and workers need
 * `maxRetriesPerRequest: null` (they block and retry themselves). The span buffer's commands
 * instead fail fast while Redis is unreachable (`enableOfflineQueue: false`, one retry) or slower
 * than 3 s per command, so the receiver answers 503 at once rather than hold requests (and their
 * memory) until exporters time out. A command that timed out may still have run; the exporter's
 * retry then appends the spans twice, which reading dedupes by span id.
 */
export function createRedisConnection(url: string, role: 'bullmq' | 'commands'): Redis {
  return role === 'bullmq'
    ? new Redis(url, { maxRetriesPerRequest: null })
    : new Redis(url, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2000,
        commandTimeout: COMMAND_TIMEOUT_MS,
        // Commands issued in one event-loop turn (a worker's concurrent jobs, a request's traces)
        // go out in one write: fewer syscalls and Redis reads. Safe: this role never blocks.
        enableAutoPipelining: true,
      });
}

/**
 * Waits until a fail-fast connection is ready, for at most `timeoutMs`; rejects otherwise. A
 * connection without an offline queue refuses commands while (re)connecting, including its first.
 */
export async function whenReady(redis: Redis, timeoutMs = 2000): Promise<void> {
  if (redis.status === 'ready') return;
  if (redis.status === 'wait') void redis.connect().catch(() => undefined);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not ready after ${timeoutMs} ms (status ${redis.status})`));
    }, timeoutMs);
    function onReady(): void {
      clearTimeout(timer);
      resolve();
    }
    redis.once('ready', onReady);
  });
}

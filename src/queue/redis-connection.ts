import { Redis } from 'ioredis';

/**
 * Opens a Redis connection for one role. BullMQ's queues and workers need
 * `maxRetriesPerRequest: null` (they block and retry themselves). The span buffer's commands
 * instead fail fast while Redis is unreachable (`enableOfflineQueue: false`, one retry), so the
 * receiver can answer 503 at once rather than hold requests until exporters time out.
 */
export function createRedisConnection(url: string, role: 'bullmq' | 'commands'): Redis {
  return role === 'bullmq'
    ? new Redis(url, { maxRetriesPerRequest: null })
    : new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
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

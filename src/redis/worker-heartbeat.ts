import type { RedisClient } from './redis-connection.js';

/** The key every worker process writes the time into while it runs. */
export function workerHeartbeatKey(prefix: string): string {
  return `${prefix}:workers:seen`;
}

/**
 * Writes the time into `<prefix>:workers:seen` now and every `intervalMs` while the process has
 * workers (a failed write is retried at the next beat); the receiver's admission reads it to tell
 * whether any worker is alive. Returns the function that stops it.
 */
export function startWorkerHeartbeat(
  redis: RedisClient,
  prefix: string,
  intervalMs = 5_000,
): () => void {
  const beat = (): void => {
    redis
      .set(workerHeartbeatKey(prefix), String(Date.now()), 'PX', 7 * 86_400_000)
      .catch(() => undefined);
  };
  beat();
  const timer = setInterval(beat, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** When a worker last wrote its heartbeat, in Unix ms; `undefined` when none ever has (or long ago). */
export async function lastWorkerSeen(
  redis: RedisClient,
  prefix: string,
): Promise<number | undefined> {
  const value = await redis.get(workerHeartbeatKey(prefix));
  return value === null ? undefined : Number(value);
}

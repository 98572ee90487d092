import type { Config } from '../config/config-schema.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { DriverEvents, QueueDriver } from './queue-driver.js';

/**
 * The driver the config asks for: `bullmq` when a Redis URL (`REDIS_URL`, `queue.redisUrl`) or
 * Redis Cluster nodes (`REDIS_CLUSTER_NODES`) are set, else the embedded `memory` driver, which needs the receiver and the workers
 * in one process (`SS_USAGE` otherwise, saying what to do). Each driver's code (BullMQ and
 * ioredis, or p-queue) is loaded only when chosen.
 */
export async function createQueueDriver(
  config: Readonly<Config>,
  role: { receiver: boolean; workers: boolean },
  events: DriverEvents,
): Promise<QueueDriver> {
  if ((config.queue.driver ?? 'memory') === 'bullmq') {
    const { createBullmqQueueDriver } = await import('./bullmq-queue-driver.js');
    return createBullmqQueueDriver(config, role, events);
  }
  if (!role.receiver || !role.workers) {
    throw new SpanscoreError(
      'SS_USAGE',
      'the memory driver runs the receiver and the workers in one process: drop --no-worker, or set REDIS_URL for the bullmq driver',
    );
  }
  const { createMemoryQueueDriver } = await import('./memory-queue-driver.js');
  return createMemoryQueueDriver(config, events);
}

import { afterEach, describe, expect, it } from 'vitest';
import {
  createRedisConnection,
  sendBatch,
  whenReady,
  type RedisClient,
} from '../../src/redis/redis-connection.js';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function connections() {
  const prefix = testPrefix();
  const redis = redisFor(prefix);
  cleanups.push(redis.cleanup);
  await whenReady(redis.commands);
  return { redis, key: (name: string) => `${prefix}:${name}` };
}

/** The auto pipeline's queue of a single-Redis connection (commands issued, not yet written). */
const queued = (redis: RedisClient): number => redis.autoPipelineQueueSize;

describe('sendBatch, on a real Redis', () => {
  it('sends the batches of one tick in one automatic pipeline, each answered in its own order', async () => {
    const { redis, key } = await connections();
    const commands = redis.commands;
    const first = sendBatch<RedisClient>(commands, r => [
      r.set(key('a'), '1'),
      r.incrby(key('a'), 41),
      r.get(key('a')),
    ]);
    const second = sendBatch<RedisClient>(commands, r => [
      r.rpush(key('list'), 'x', 'y'),
      r.lrange(key('list'), 0, -1),
    ]);
    // Nothing written yet: both batches wait in the connection's one pipeline for the tick's end.
    expect(queued(commands)).toBe(5);
    expect(await first).toEqual(['OK', 42, '42']);
    expect(await second).toEqual([2, ['x', 'y']]);
    expect(queued(commands)).toBe(0);
  });

  it("rejects with a failing command's error, and the batch's other commands still run", async () => {
    const { redis, key } = await connections();
    const batch = sendBatch<RedisClient>(redis.commands, r => [
      r.set(key('s'), 'text'),
      r.hincrby(key('s'), 'n', 1), // a string key: WRONGTYPE
      r.set(key('after'), 'ran'),
    ]);
    await expect(batch).rejects.toThrow(/WRONGTYPE/);
    expect(await redis.commands.get(key('after'))).toBe('ran');
  });

  it('uses an explicit pipeline on a connection without automatic pipelining', async () => {
    const { key } = await connections();
    const plain = createRedisConnection(REDIS_URL, 'bullmq');
    cleanups.push(() => plain.quit().then(() => undefined));
    const batch = sendBatch<RedisClient>(plain, r => [
      r.set(key('p'), 'v'),
      r.get(key('p')),
      r.del(key('p')),
    ]);
    expect(queued(plain)).toBe(0);
    expect(await batch).toEqual(['OK', 'v', 1]);
  });
});

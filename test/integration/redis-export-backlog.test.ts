import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisExportBacklog, MAX_UNREMOVED } from '../../src/redis/redis-export-backlog.js';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { startRedisServer } from '../helpers/redis-server.js';

/**
 * The bullmq driver's export backlog (`spanscore_exports_waiting`) on a Redis server of the
 * test's own, stopped under it: a removal Redis did not take is made later, not left counted as
 * waiting until it ages out.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const HOUR = 3_600_000;

async function backlogOnOwnRedis(now: () => number = Date.now) {
  const server = await startRedisServer();
  closers.push(() => server.stop());
  // The connection a worker's backlog uses: fail-fast commands.
  const commands = createRedisConnection(server.url, 'commands');
  commands.on('error', () => {});
  closers.push(() => commands.quit().catch(() => commands.disconnect()));
  await whenReady(commands, 10_000);
  const probe = new Redis(server.url, { lazyConnect: true });
  closers.push(() => probe.quit().catch(() => probe.disconnect()));
  const members = async (): Promise<string[]> => {
    await whenReady(commands, 10_000);
    if (probe.status !== 'ready') await probe.connect().catch(() => undefined);
    return probe.zrange('p:exports:{b}:failing', 0, -1);
  };
  const backlog = createRedisExportBacklog(commands, 'p', { maxAgeMs: HOUR, now });
  // Started again, and the backlog's connection back.
  const restart = async (): Promise<void> => {
    await server.start();
    await whenReady(commands, 10_000);
  };
  return { server, restart, backlog, members };
}

describe('the Redis export backlog', () => {
  it('removes a settled trace whose removal Redis did not take at its next read, and counts it waiting no longer', async () => {
    const { server, restart, backlog, members } = await backlogOnOwnRedis();
    await backlog.failed('t1');
    await backlog.failed('t2');
    expect((await backlog.stats()).waiting).toBe(2);

    await server.stop();
    // Exported, but Redis is away as the export settles.
    await expect(backlog.settled('t1')).rejects.toThrow();
    await restart();
    // Saved before the stop: the entry is back with Redis.
    expect(await members()).toEqual(['t1', 't2']);

    // The next read removes it first.
    expect(await backlog.stats()).toMatchObject({ waiting: 1 });
    expect(await members()).toEqual(['t2']);
  });

  it('removes kept traces with the next removal Redis takes, in the same command', async () => {
    const { server, restart, backlog, members } = await backlogOnOwnRedis();
    for (const id of ['t1', 't2', 't3']) await backlog.failed(id);
    await server.stop();
    await expect(backlog.settled('t1')).rejects.toThrow();
    await expect(backlog.settled('t2')).rejects.toThrow();
    await restart();
    await backlog.settled('t3');
    expect(await members()).toEqual([]);
  });

  it('a trace that fails again after its lost removal stays waiting', async () => {
    const { server, restart, backlog, members } = await backlogOnOwnRedis();
    await backlog.failed('t1');
    await server.stop();
    await expect(backlog.settled('t1')).rejects.toThrow();
    await restart();
    // Its export ran again and failed again: waiting, not removed by the kept removal.
    await backlog.failed('t1');
    expect(await backlog.stats()).toMatchObject({ waiting: 1 });
    expect(await members()).toEqual(['t1']);
  });

  it(`keeps at most ${MAX_UNREMOVED} lost removals, the latest`, async () => {
    const { server, restart, backlog, members } = await backlogOnOwnRedis();
    const ids = Array.from(
      { length: MAX_UNREMOVED + 10 },
      (_, i) => `t${String(i).padStart(5, '0')}`,
    );
    for (const id of ids) await backlog.failed(id);
    await server.stop();
    for (const id of ids) await expect(backlog.settled(id)).rejects.toThrow();
    await restart();
    await backlog.stats();
    // The first ten were let go (they age out); the rest were removed.
    expect(await members()).toEqual(ids.slice(0, 10));
  });

  it('drops entries older than its maximum age when read: a removal no process kept ages out', async () => {
    let t = 1_000_000;
    const { backlog, members } = await backlogOnOwnRedis(() => t);
    await backlog.failed('old');
    t += HOUR / 2;
    await backlog.failed('young');
    expect(await backlog.stats()).toEqual({ waiting: 2, oldestAgeSeconds: HOUR / 2 / 1000 });
    t += HOUR / 2 + 1;
    expect(await backlog.stats()).toEqual({ waiting: 1, oldestAgeSeconds: (HOUR / 2 + 1) / 1000 });
    expect(await members()).toEqual(['young']);
  });
});

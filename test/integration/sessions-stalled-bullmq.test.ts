import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { sessionQueueLocation } from '../../src/queue/queue-shards.js';
import type { ResultSink } from '../../src/score/result-sink.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * A session job whose worker stalls more times than BullMQ allows (`maxStalledCount`, 1), through
 * a live bullmq service on the real Redis: the session's pass hangs in a result sink (after the
 * built-in ones), and the job's lock is taken away while it does, as when its worker dies or is
 * blocked past `worker.lockDurationMs`. BullMQ's stalled-job check gives the job to a worker again
 * once (the pass runs a second time and hangs again); the second time, BullMQ fails the job
 * itself, with no pass of ours running. The part's record then ends `failed`, saying its worker
 * stalled, once, and `spanscore_session_failures_total` counts it; before, nothing ended it and
 * the record stayed as the hung pass left it.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('a session job stalled past maxStalledCount (bullmq driver)', () => {
  it("ends the part's record failed, saying its worker stalled, once", async () => {
    const hung: Array<() => void> = [];
    const sink: ResultSink & { passes: number } = {
      name: 'hanging',
      passes: 0,
      write: run => {
        if (run.session?.id !== 'conv-s') return;
        sink.passes++;
        return new Promise<void>(resolve => hung.push(resolve));
      },
    };
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-stalled-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const live = await startLiveService(
      'bullmq',
      {
        'export.enabled': false,
        'toolHealth.enabled': false,
        'sessions.idleMs': 300,
        // Three session jobs at once: a hung pass holds its slot, and the job taken again needs one.
        'worker.concurrency': 12,
        'worker.stalledIntervalMs': 200,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
      undefined,
      { sinks: [sink] },
    );
    // The hung passes end before the service closes (its close waits for the jobs it runs).
    closers.push(() => Promise.resolve(hung.forEach(release => release())));
    const redis = live.redis!;
    const where = sessionQueueLocation(live.prefix, false);
    const queue = new Queue(where.name, { connection: redis.bullmq(), prefix: where.prefix });
    closers.push(() => queue.close());
    /** Deletes the lock of the session job under way: its worker no longer holds it. */
    const takeLock = async (): Promise<void> => {
      const [job] = await queue.getActive();
      expect(job).toBeDefined();
      expect(await redis.commands.del(`${where.prefix}:${where.name}:${job!.id}:lock`)).toBe(1);
    };
    const session = () => live.get<RunRecord>('sessions/conv-s');

    const first = turn('conv-s', ['lookup_order'], 0);
    await live.send(first);
    await waitFor(() => sink.passes === 1, 'the pass under way', 20_000);
    await takeLock();
    await waitFor(
      () => sink.passes === 2,
      'the stalled job taken again, its pass run again',
      20_000,
    );
    await takeLock();
    await waitFor(async () => (await session()).body.state === 'failed', 'part 1 failed', 20_000);

    const record = (await session()).body;
    expect(record.reason).toContain('stalled');
    expect(record.reason).toContain('maxStalledCount 1');
    expect(record.session).toMatchObject({ part: 1, traceIds: [first.traceId] });
    const [failed] = await queue.getFailed();
    expect(failed?.data).toMatchObject({ sessionId: 'conv-s', part: 1 });
    // BullMQ's own reason: it failed the job, no pass did.
    expect(failed?.failedReason).toBe('job stalled more than allowable limit');
    expect(sink.passes).toBe(2);
    expect(await scrapeMetric(live.metrics, 'spanscore_session_failures_total')).toBe(1);

    // Once (the metric is counted with the line): the hung passes end and the service closes; nothing ends the part again.
    await closers.pop()!();
    await closers.pop()!();
    await closers.pop()!();
    const ends = live.lines.filter(l => l.includes('"conv-s" part 1 failed'));
    expect(ends).toHaveLength(1);
    expect(ends[0]).toContain('stalled');
    expect(sink.passes).toBe(2);
  }, 60_000);
});

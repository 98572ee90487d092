import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import {
  sessionQueueLocation,
  traceQueueShards,
  type QueueLocation,
} from '../../src/queue/queue-shards.js';
import type { ResultSink } from '../../src/score/result-sink.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService, type LiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * A job whose worker stalls more times than BullMQ allows (`maxStalledCount`, 1), through a live
 * bullmq service on the real Redis: the job's pass hangs in a result sink (after the built-in
 * ones), and its lock is taken away while it does, as when its worker dies or is blocked past
 * `worker.lockDurationMs`. BullMQ's stalled-job check gives the job to a worker again once (the
 * pass runs a second time and hangs again); the second time, BullMQ fails the job itself, with no
 * pass of ours running. The job's record then ends `failed`, saying its worker stalled, once, and
 * the failure is counted. Before, a session job's record stayed as the hung pass left it, and a
 * trace job's said only BullMQ's "job stalled more than allowable limit".
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** A sink whose writes of the runs `hangs` picks never end until the test lets them. */
function hangingSink(hangs: (run: Parameters<ResultSink['write']>[0]) => boolean) {
  const hung: Array<() => void> = [];
  const sink: ResultSink & { passes: number } = {
    name: 'hanging',
    passes: 0,
    write: run => {
      if (!hangs(run)) return;
      sink.passes++;
      return new Promise<void>(resolve => hung.push(resolve));
    },
  };
  return { sink, release: () => hung.forEach(release => release()) };
}

/**
 * A live service whose passes `hangs` picks hang, and a way to take the lock of the job under way
 * in the queue at `where` (for the service's prefix) away from its worker.
 */
async function stallingService(
  hangs: (run: Parameters<ResultSink['write']>[0]) => boolean,
  where: (prefix: string) => QueueLocation,
): Promise<{
  live: LiveService;
  sink: { passes: number };
  queue: Queue;
  takeLock: () => Promise<void>;
}> {
  const { sink, release } = hangingSink(hangs);
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-stalled-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  const live = await startLiveService(
    'bullmq',
    {
      'export.enabled': false,
      'toolHealth.enabled': false,
      'sessions.idleMs': 300,
      // Scoring slots to spare: a hung pass holds its own, and the job taken again needs one.
      'worker.concurrency': 64,
      'worker.stalledIntervalMs': 200,
      suites: [join(dir, 'support.yaml')],
    },
    closers,
    undefined,
    { sinks: [sink] },
  );
  // The hung passes end before the service closes (its close waits for the jobs it runs).
  closers.push(() => Promise.resolve(release()));
  const at = where(live.prefix);
  const queue = new Queue(at.name, { connection: live.redis!.bullmq(), prefix: at.prefix });
  closers.push(() => queue.close());
  const takeLock = async (): Promise<void> => {
    const [job] = await queue.getActive();
    expect(job).toBeDefined();
    const lock = `${at.prefix}:${at.name}:${job!.id}:lock`;
    expect(await live.redis!.commands.del(lock)).toBe(1);
  };
  return { live, sink, queue, takeLock };
}

/** Closes the queue, lets the hung passes end and closes the service (its close waits for them). */
async function closeAll(): Promise<void> {
  for (let i = 0; i < 3; i++) await closers.pop()!();
}

describe('a job stalled past maxStalledCount (bullmq driver)', () => {
  it("ends a session part's record failed, saying its worker stalled, once", async () => {
    const { live, sink, queue, takeLock } = await stallingService(
      run => run.session?.id === 'conv-s',
      prefix => sessionQueueLocation(prefix, false),
    );
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

    // Once (the metric is counted with the line): nothing ends the part again.
    await closeAll();
    const ends = live.lines.filter(l => l.includes('"conv-s" part 1 failed'));
    expect(ends).toHaveLength(1);
    expect(ends[0]).toContain('stalled');
    expect(sink.passes).toBe(2);
  }, 60_000);

  it("ends a trace's record failed, saying its worker stalled, once", async () => {
    // A trace of no session test case (untagged: it opens no session).
    const trace = turn('conv-t', ['lookup_order'], 0, {}, null);
    const { live, sink, queue, takeLock } = await stallingService(
      run => run.traceId === trace.traceId && !run.session,
      prefix => traceQueueShards(prefix, 1, false)[0]!,
    );
    const record = () => live.get<RunRecord>(`traces/${trace.traceId}`);
    await live.send(trace);
    await waitFor(() => sink.passes === 1, 'the pass under way', 20_000);
    await takeLock();
    await waitFor(
      () => sink.passes === 2,
      'the stalled job taken again, its pass run again',
      20_000,
    );
    await takeLock();
    await waitFor(async () => (await record()).body.state === 'failed', 'the trace failed', 20_000);

    expect((await record()).body.reason).toContain('stalled');
    expect((await record()).body.reason).toContain('maxStalledCount 1');
    const [failed] = await queue.getFailed();
    expect(failed?.failedReason).toBe('job stalled more than allowable limit');
    expect(sink.passes).toBe(2);
    expect(await scrapeMetric(live.metrics, 'spanscore_trace_failures_total')).toBe(1);
    await closeAll();
    expect(live.lines.filter(l => l.startsWith(`spanscore: could not score trace`))).toHaveLength(
      1,
    );
    expect(sink.passes).toBe(2);
  }, 60_000);
});

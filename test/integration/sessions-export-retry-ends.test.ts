import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import type { EvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import { sessionQueueLocation } from '../../src/queue/queue-shards.js';
import { sessionTotalKeys } from '../../src/redis/session-keys.js';
import type { ResultSink } from '../../src/score/result-sink.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService, type LiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import {
  SESSION_SUITE_YAML as SUITE,
  sessionPassCounter,
  sessionTurn as turn,
} from '../helpers/session-turn.js';

/**
 * How a bullmq session job that retries its export (put back delayed: `moveToDelayed`) ends,
 * through a live service on the real Redis, each pass counted by a sink after the built-in ones
 * and each export by the backend. A turn that came while the failed try ran is recorded and
 * delivered once: the retry reads it, and the pass BullMQ held back for it (`keepLastIfActive`)
 * finds nothing new. A part whose export is given up on leaves the export backlog, is no longer
 * listed as open and, cut, gives its bytes back. A job stalled out while it retried the export of
 * results already recorded ends as an export given up on: its record stays scored. While it waits
 * for its next try, the part is listed as due then.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/**
 * A backend whose calls that carry a session's spans are counted and each answered as `answer`
 * says: `fail` at once, `hold` until the test lets it go (then it fails), `deliver`.
 */
function sessionBackend(answer: (call: number) => 'fail' | 'hold' | 'deliver') {
  const state = { calls: 0, delivered: [] as number[] };
  const held: Array<() => void> = [];
  const exporter: EvaluationExporter = {
    export: async spans => {
      const session = spans.filter(s => s.attributes['spanscore.session.id'] !== undefined);
      if (!session.length) return;
      const call = ++state.calls;
      const how = answer(call);
      if (how === 'hold') await new Promise<void>(resolve => held.push(resolve));
      if (how !== 'deliver') throw new SpanscoreError('SS_EXPORT_FAILED', 'backend down');
      state.delivered.push(Number(session[0]!.attributes['spanscore.session.turns']));
    },
    shutdown: () => Promise.resolve(),
  };
  return { exporter, state, letGo: () => held.splice(0).forEach(go => go()) };
}

async function start(
  backend: ReturnType<typeof sessionBackend>,
  sinks: ResultSink[],
  extra: Record<string, unknown> = {},
): Promise<{ live: LiveService; queue: Queue }> {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-retry-ends-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  const live = await startLiveService(
    'bullmq',
    {
      'toolHealth.enabled': false,
      'sessions.idleMs': 300,
      'worker.attempts': 5,
      'worker.backoffMs': 20,
      'worker.concurrency': 64,
      'worker.stalledIntervalMs': 200,
      'export.retryMaxAgeMs': 30_000,
      'export.retryMaxBackoffMs': 50,
      'export.logResults': false,
      suites: [join(dir, 'support.yaml')],
      ...extra,
    },
    closers,
    undefined,
    { exporter: backend.exporter, sinks },
  );
  // Calls still held end before the service closes (its close waits for the jobs it runs).
  closers.push(() => Promise.resolve(backend.letGo()));
  const at = sessionQueueLocation(live.prefix, false);
  const queue = new Queue(at.name, { connection: live.redis!.bullmq(), prefix: at.prefix });
  closers.push(() => queue.close());
  return { live, queue };
}

/** No session job waits, is delayed or runs. */
async function idle(queue: Queue): Promise<boolean> {
  const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
  return Object.values(counts).every(n => n === 0);
}

describe('a bullmq session job retrying its export', () => {
  it('records and delivers a turn that came while the failed try ran once', async () => {
    const { sink, passes } = sessionPassCounter();
    // The first call is held while turn 2 comes, then fails; the others deliver.
    const backend = sessionBackend(call => (call === 1 ? 'hold' : 'deliver'));
    const { live, queue } = await start(backend, [sink]);
    await live.send(turn('conv-d', ['lookup_order'], 0));
    await waitFor(() => backend.state.calls === 1, 'the first try exporting', 20_000);
    await live.send(turn('conv-d', ['verify_identity', 'issue_refund'], 1000));
    // Turn 2 is in the part once its trace is scored (its record says it waits for its session).
    await waitFor(
      async () =>
        (await live.get<{ sessions: Array<{ traceIds: string[] }> }>('sessions?state=open')).body
          .sessions[0]?.traceIds.length === 2,
      'turn 2 held with the part',
      20_000,
    );
    backend.letGo();
    await waitFor(() => backend.state.delivered.length > 0, 'delivered', 20_000);
    await waitFor(() => idle(queue), 'no session job left', 20_000);

    // The first try (turn 1) and its retry, which read turn 2: the pass held back for turn 2 did
    // nothing again. Before, it recorded and delivered the same two turns once more.
    expect(backend.state.delivered).toEqual([2]);
    expect(passes.get('conv-d')).toBe(2);
    const record = (await live.get<RunRecord>('sessions/conv-d')).body;
    expect(record.state).toBe('scored');
    expect(record.export?.state).toBe('exported');
  }, 60_000);

  it('is listed as due at its next try while it waits for it, not as under way', async () => {
    const backend = sessionBackend(() => 'fail');
    const { live } = await start(backend, [], {
      'worker.backoffMs': 60_000,
      'export.retryMaxBackoffMs': 60_000,
    });
    await live.send(turn('conv-w', ['lookup_order'], 0));
    await waitFor(
      () => live.lines.some(l => l.includes('"conv-w" (part 1) export try 1 failed')),
      'the first export failed, its retry delayed',
      20_000,
    );
    const open = await live.get<{
      sessions: Array<{ sessionId: string; scoreAtMs: number | null }>;
    }>('sessions?state=open');
    // Before: null (under way) for as long as its export was retried, up to an hour.
    expect(open.body.sessions).toEqual([
      expect.objectContaining({ sessionId: 'conv-w', scoreAtMs: expect.any(Number) }),
    ]);
    expect(backend.state.calls).toBe(1);
  }, 60_000);

  describe.each([
    ['kept for a late turn', {}],
    ['cut (sessions.maxTraces 1)', { 'sessions.maxTraces': 1 }],
  ])('given up on, its part %s', (_, bounds) => {
    it('leaves the export backlog, is no longer listed as open, and holds no bytes once cut', async () => {
      const { sink, passes } = sessionPassCounter();
      const backend = sessionBackend(() => 'fail');
      const { live, queue } = await start(backend, [sink], {
        'export.retryMaxAgeMs': 1500,
        'export.retryMaxBackoffMs': 200,
        ...bounds,
      });
      await live.send(turn('conv-g', ['lookup_order'], 0));
      await waitFor(
        () => live.lines.some(l => l.includes('gave up exporting the evaluation spans of session')),
        'the export given up on',
        20_000,
      );
      await waitFor(() => idle(queue), 'no session job left', 20_000);

      expect(passes.get('conv-g')).toBe(1);
      const record = (await live.get<RunRecord>('sessions/conv-g')).body;
      expect(record.state).toBe('scored');
      expect(record.export?.state).toBe('failed');
      // Before: 1 waiting (for 7 days), listed as open with its pass under way, bytes held.
      expect(await scrapeMetric(live.metrics, 'spanscore_exports_waiting')).toBe(0);
      const open = await live.get<{ sessions: unknown[] }>('sessions?state=open');
      expect(open.body.sessions).toEqual([]);
      const held = await live.redis!.commands.get(sessionTotalKeys(live.prefix).total);
      if ('sessions.maxTraces' in bounds) expect(Number(held ?? 0)).toBe(0);
      else expect(Number(held)).toBeGreaterThan(0);
    }, 60_000);
  });

  it('stalled out while exporting results already recorded, ends as an export given up on', async () => {
    const { sink, passes } = sessionPassCounter();
    // The first try's export fails at once; the later ones are held while the test takes the
    // job's lock away (its worker stalled), then fail.
    const backend = sessionBackend(call => (call === 1 ? 'fail' : 'hold'));
    const { live, queue } = await start(backend, [sink]);
    const at = sessionQueueLocation(live.prefix, false);
    const takeLock = async (): Promise<void> => {
      const [job] = await queue.getActive();
      expect(job?.data).toMatchObject({ sessionId: 'conv-e', exportTries: expect.any(Number) });
      expect(await live.redis!.commands.del(`${at.prefix}:${at.name}:${job!.id}:lock`)).toBe(1);
    };
    await live.send(turn('conv-e', ['lookup_order'], 0));
    for (const call of [2, 3]) {
      await waitFor(() => backend.state.calls === call, `export call ${call} held`, 20_000);
      await takeLock();
      backend.letGo();
    }
    await waitFor(
      async () => (await live.get<RunRecord>('sessions/conv-e')).body.export?.state === 'failed',
      "the part's export given up on",
      20_000,
    );
    const [failed] = await queue.getFailed();
    expect(failed?.failedReason).toBe('job stalled more than allowable limit');

    // Recorded once, by the first try; the record stands (before: ended failed).
    expect(passes.get('conv-e')).toBe(1);
    const record = (await live.get<RunRecord>('sessions/conv-e')).body;
    expect(record.state).toBe('scored');
    expect(record.export?.lastError).toContain('stalled');
    expect(live.lines.filter(l => l.includes('"conv-e" part 1 failed'))).toEqual([]);
    expect(live.lines.filter(l => l.includes('gave up exporting'))).toHaveLength(1);
  }, 60_000);
});

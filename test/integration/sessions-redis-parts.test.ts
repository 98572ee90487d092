import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { sessionQueueLocation } from '../../src/queue/queue-shards.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { startLiveService } from '../helpers/live-service.js';
import { createBullmqQueueDriver } from '../../src/queue/bullmq-queue-driver.js';
import { otlpRequest } from '../helpers/otlp-json-builder.js';
import { addAsPreviousRelease } from '../helpers/previous-session-layout.js';
import { redisFor, waitFor } from '../helpers/redis.js';
import { resultRows } from '../helpers/result-rows.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * Sessions on the bullmq driver through a live service on a real Redis: a session held past
 * `sessions.maxAgeMs` is scored with every turn it had, and cut; a session cut at a bound keeps
 * its pass and a later turn opens the next part; a full `sessions.maxBytes` refuses new sessions
 * (the turn scored alone as the part it would have opened, counted and logged); a session the
 * previous release wrote is scored. Every pass is read from the results file, which keeps them
 * all.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function start(more: Record<string, unknown>, before?: (prefix: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-redis-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  const results = join(dir, 'results.jsonl');
  const live = await startLiveService(
    'bullmq',
    {
      'export.enabled': false,
      'export.resultsFile': results,
      'export.logResults': false,
      'toolHealth.enabled': false,
      suites: [join(dir, 'support.yaml')],
      ...more,
    },
    closers,
    before,
  );
  const redis = live.redis!;
  /** Each session pass in the results file: its session id, turns and cut. */
  const passes = () =>
    resultRows(results)
      .filter(r => r.session)
      .map(r => ({
        id: r.session!.id,
        turns: r.session!.turns.map(t => t.traceId),
        cut: r.session!.cut,
        cutReason: r.session!.cutReason,
        testCaseId: r.testCaseId,
      }));
  return { ...live, redis, passes };
}

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

describe('sessions on Redis (bullmq driver)', () => {
  it('scores a session that reaches sessions.maxAgeMs with every turn it had, cut max_age; a later turn opens part 2', async () => {
    // Only maxAgeMs ends the first part: its last turn goes at least 1.2 s after the first, so
    // idleMs (2.5 s) runs past maxAgeMs (3 s) however late a send lands, and a send may land up
    // to 1.8 s late before it misses the part (sends spread over 1.8 s of 2.5 s once missed it
    // on a loaded host). The pass at maxAgeMs once found the session's
    // keys expired at that very moment, and the turns were never scored.
    const { send, passes, redis, prefix } = await start({
      'sessions.maxAgeMs': 3_000,
      'sessions.idleMs': 2_500,
    });
    const turns = [0, 1, 2, 3].map(i =>
      turn('conv-age', i === 0 ? ['lookup_order'] : ['verify_identity', 'issue_refund'], i * 1000),
    );
    for (const t of turns) {
      await send(t);
      await sleep(400);
    }
    // About 1.6 s after the first: the first part still waits for its pass at maxAgeMs.
    await waitFor(
      () => passes().some(p => p.turns.length === 4),
      'the first part scored with its four turns',
      15_000,
    );
    const first = passes().find(p => p.turns.length === 4)!;
    expect(first.turns).toEqual(turns.map(t => t.traceId));
    expect([first.cut, first.cutReason]).toEqual([
      'max_age',
      'cut 3 seconds after its first trace (sessions.maxAgeMs): scored as it stood; a later turn opens its next part',
    ]);
    expect(first.cut).toBe('max_age');
    // Its turns were given back once its pass had run.
    await waitFor(
      async () => (await redis.commands.hexists(`${prefix}:session:{conv-age}`, 'done')) === 1,
      'the first part released',
    );
    // A later turn without the test case id: its part is scored by the test case that opened
    // the session (kept on part 1), not left unscored.
    const late = turn('conv-age', ['issue_refund'], 5_000, {}, null);
    await send(late);
    await waitFor(
      () => passes().some(p => p.turns.length === 1),
      'the second part scored after idleMs',
      15_000,
    );
    expect(passes().filter(p => p.turns.length === 1)).toEqual([
      { id: 'conv-age', turns: [late.traceId], cut: undefined, testCaseId: 'refund' },
    ]);
    // Every pass with the first turn has all four: no fragment of the first part was scored.
    const withFirst = passes().filter(p => p.turns.includes(turns[0]!.traceId));
    expect(withFirst.map(p => p.turns.length)).toEqual(withFirst.map(() => 4));
  }, 40_000);

  it('keeps a session cut at sessions.maxTraces; a later turn opens part 2 instead of being dropped', async () => {
    const { send, passes, lines } = await start({
      'sessions.maxTraces': 2,
      'sessions.idleMs': 500,
    });
    const turns = [0, 1, 2].map(i => turn('conv-n', ['lookup_order'], i * 1000));
    for (const t of turns) await send(t);
    await waitFor(() => passes().length >= 2, 'both parts scored', 15_000);
    await sleep(700); // past idleMs again: nothing more comes
    expect(passes().sort((a, b) => b.turns.length - a.turns.length)).toEqual([
      {
        id: 'conv-n',
        turns: [turns[0]!.traceId, turns[1]!.traceId],
        cut: 'max_traces',
        cutReason:
          'cut at 2 traces (sessions.maxTraces): scored as it stood; a later turn opens its next part',
        testCaseId: 'refund',
      },
      { id: 'conv-n', turns: [turns[2]!.traceId], cut: undefined, testCaseId: 'refund' },
    ]);
    expect(lines.filter(l => l.includes('not added'))).toEqual([]);
  }, 30_000);

  it('refuses new sessions when sessions.maxBytes is full: the turn is scored alone as part 1, counted and logged', async () => {
    const { send, passes, lines, metrics, redis, prefix } = await start({
      'sessions.maxBytes': 1,
      'sessions.idleMs': 300,
    });
    const first = turn('conv-full', ['lookup_order'], 0);
    await send(first);
    await waitFor(
      async () =>
        (await scrapeMetric(metrics, 'spanscore_sessions_refused_total', {
          reason: 'max_bytes',
        })) === 1,
      'the session refused',
      10_000,
    );
    expect(lines.filter(l => l.includes('session "conv-full" not held'))).toEqual([
      `spanscore: session "conv-full" not held (trace ${first.traceId} scored alone, as part 1): the bytes all sessions hold are at sessions.maxBytes (1); sessions already held go on (spanscore_sessions_refused_total)`,
    ]);
    await waitFor(() => passes().length === 1, 'the turn scored alone', 10_000);
    await sleep(600);
    expect(passes()).toEqual([
      {
        id: 'conv-full',
        turns: [first.traceId],
        cut: 'max_bytes',
        cutReason:
          'not held: the sessions held filled sessions.maxBytes (1 bytes) when this turn came: scored alone, as this part of its session; a later turn opens its next part',
        testCaseId: 'refund',
      },
    ]);
    // No turn held: the part is marked closed, for the session's next turn to continue it.
    const held = await redis.commands.hgetall(`${prefix}:session:{conv-full}`);
    expect(Object.keys(held).filter(f => f.startsWith('t:'))).toEqual([]);
    expect(held).toMatchObject({ n: '0', cut: 'max_bytes', done: '1' });
  }, 20_000);

  it('scores a session the previous release wrote, with its queued job, and a turn that joins it', async () => {
    const old = [
      turn('conv-old', ['lookup_order'], 0),
      turn('conv-old', ['verify_identity', 'issue_refund'], 60_000),
    ];
    const { send, passes } = await start({ 'sessions.idleMs': 800 }, async prefix => {
      const redis = redisFor(prefix);
      closers.push(redis.cleanup);
      await whenReady(redis.commands);
      for (const t of old)
        await addAsPreviousRelease(redis.commands, prefix, {
          id: 'conv-old',
          traceId: t.traceId,
          spans: decodeOtlpJson(otlpRequest(t.spans)).spans,
          nowMs: Date.now(),
        });
      // Its job as that release queued it: no part, deduplicated by the session id.
      const where = sessionQueueLocation(prefix, false);
      const queue = new Queue(where.name, { connection: redis.bullmq(), prefix: where.prefix });
      await queue.add(
        where.name,
        { sessionId: 'conv-old' },
        { delay: 200, deduplication: { id: 'conv-old' }, removeOnComplete: true },
      );
      await queue.close();
    });
    await waitFor(() => passes().length === 1, 'the old session scored', 15_000);
    expect(passes()).toEqual([
      { id: 'conv-old', turns: old.map(t => t.traceId), cut: undefined, testCaseId: 'refund' },
    ]);
    const next = turn('conv-old', ['issue_refund'], 120_000);
    await send(next);
    await waitFor(() => passes().length === 2, 'scored again with the new turn', 15_000);
    expect(passes()[1]!.turns).toEqual([...old.map(t => t.traceId), next.traceId]);
  }, 30_000);

  it('lists the open sessions from any process, one without workers too', async () => {
    const { send, config } = await start({ 'sessions.idleMs': 600_000 });
    const receiver = createBullmqQueueDriver(
      config,
      { receiver: false, workers: false },
      {
        log: () => undefined,
        onLateSpans() {},
        onTraceFailed() {},
        onTraceExpired() {},
        onAdmissionRefused() {},
      },
    );
    closers.push(() => receiver.close(1000));
    const first = turn('conv-open', ['lookup_order'], 0);
    const second = turn('conv-open', ['verify_identity'], 1_000);
    await send(first);
    await send(second);
    // A turn writes its part, then the due set (two slots, two writes), and the listing reads the
    // due set, then the part: between the writes it shows the new turn with the due time the
    // turn before set (in CI once, 21 ms early). It is read until it shows both.
    await waitFor(async () => {
      const [listed] = await receiver.openSessions!(10);
      return listed?.traceIds.length === 2 && listed.scoreAtMs === listed.lastAtMs + 600_000;
    }, 'the session listed with its two turns, due idleMs after the second');
    const [open] = await receiver.openSessions!(10);
    expect(open).toMatchObject({
      sessionId: 'conv-open',
      part: 1,
      traceIds: [first.traceId, second.traceId],
    });
    // Due idleMs after its latest turn, which came after its first.
    expect(open!.scoreAtMs).toBe(open!.lastAtMs + 600_000);
    expect(open!.lastAtMs).toBeGreaterThanOrEqual(open!.firstAtMs);
    expect(open!.bytes).toBeGreaterThan(0);
  }, 20_000);
});

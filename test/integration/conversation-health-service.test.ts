import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord, StoredResult } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { startOtlpBackend } from '../helpers/otlp-backend.js';
import { sessionTurn } from '../helpers/session-turn.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';

/**
 * Tool health across production conversations through a live `serve`, on both drivers: turns of a
 * conversation no test case names, each a trace with `session.id` on its root, sent over
 * OTLP/HTTP. With `toolHealth.sessions` on, they are gathered into their session and a lookup
 * repeated over three turns fails `tool_loops` on the session as `rule:tool-health`; off, no
 * session is held at all.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function start(driver: 'memory' | 'bullmq', sessions: boolean) {
  const backend = await startOtlpBackend();
  closers.push(() => backend.close());
  const live = await startLiveService(
    driver,
    {
      'export.url': backend.url,
      'export.batchDelayMs': 10,
      'toolHealth.enabled': true,
      'toolHealth.sessions': sessions,
      // Long enough that a turn sent on a loaded host still finds its conversation open: at 400
      // ms the session's record failed to match the three turns sent, once, in a full test run.
      'sessions.idleMs': 1500,
    },
    closers,
  );
  const { redis, prefix } = live;
  return {
    ...live,
    backend,
    /** Whether the session is held: in the memory driver's map, or its hash in Redis. */
    held: async (sessionId: string): Promise<boolean> =>
      redis
        ? (await redis.commands.exists(`${prefix}:session:{${sessionId}}`)) === 1
        : (await scrapeMetric(live.metrics, 'spanscore_jobs', {
            state: 'sessions_held',
          })) === 1,
  };
}

/** A turn of conversation `sessionId` with no test case id: one lookup of order A1. */
function lookupTurn(sessionId: string, atMs: number) {
  const turn = sessionTurn(sessionId, ['lookup_order'], atMs, {}, null);
  turn.spans[1]!.attributes!['gen_ai.tool.call.arguments'] = '{"order":"A1"}';
  return turn;
}

describe.each(['memory', 'bullmq'] as const)(
  'tool health across production conversations through serve (%s driver)',
  driver => {
    it('reports a lookup repeated over three turns as a tool_loops failure on the session, as rule:tool-health', async () => {
      const { send, get, lines, metrics, held, backend } = await start(driver, true);
      expect(lines).toContainEqual(
        expect.stringContaining('spanscore: tool health across conversations on'),
      );
      const turns = [0, 60_000, 120_000].map(at => lookupTurn('prod-conv', at));
      for (const t of turns) await send(t);
      await waitFor(
        async () => (await get(`sessions/prod-conv`)).status === 200,
        'the conversation scored',
        15_000,
      );
      const record = (await get<RunRecord>('sessions/prod-conv')).body;
      expect(record).toMatchObject({
        traceId: 'session:prod-conv',
        state: 'scored',
        session: { id: 'prod-conv', traceIds: turns.map(t => t.traceId) },
      });
      expect(record.results.map(r => [r.testCaseId, r.scorer, r.label])).toEqual([
        ['rule:tool-health', 'tool_errors', 'pass'],
        ['rule:tool-health', 'tool_loops', 'fail'],
      ]);
      expect(record.results[1]!.reason).toBe(
        'lookup_order was called 3 times with the same arguments ({"order":"A1"})',
      );
      // The results carry the session id; each turn alone (one lookup) passed its own tool health.
      const results = (await get<{ results: StoredResult[] }>('results?window=1h')).body.results;
      expect(
        results
          .filter(r => r.scorer === 'tool_loops')
          .map(r => `${r.sessionId ?? '(a trace)'} ${r.testCaseId} ${r.label}`)
          .sort(),
      ).toEqual([
        '(a trace) rule:tool-health pass',
        '(a trace) rule:tool-health pass',
        '(a trace) rule:tool-health pass',
        'prod-conv rule:tool-health fail',
      ]);
      // Its evaluation spans go on the last turn's root, naming the conversation.
      await waitFor(
        () => backend.spans.some(s => s.attributes['spanscore.session.id'] === 'prod-conv'),
        "the conversation's evaluation spans exported",
        10_000,
      );
      const loops = backend.spans.find(
        s =>
          s.attributes['spanscore.session.id'] === 'prod-conv' &&
          s.name === 'evaluation tool_loops',
      );
      expect(loops).toMatchObject({
        traceId: turns[2]!.traceId,
        parentSpanId: turns[2]!.spans[0]!.spanId,
      });
      expect(loops!.attributes).toMatchObject({
        'spanscore.session.turns': 3,
        'gen_ai.evaluation.score.label': 'fail',
      });
      // The session stays held (for a later turn) until sessions.maxAgeMs.
      expect(await held('prod-conv')).toBe(true);
      expect(
        await scrapeMetric(metrics, 'spanscore_sessions_scored_total', {
          state: 'scored',
          cut: 'none',
        }),
      ).toBe(1);
    });

    it('holds nothing with toolHealth.sessions off: the turns are scored alone and no session is kept', async () => {
      const { send, get, held } = await start(driver, false);
      const turns = [0, 60_000, 120_000].map(at => lookupTurn('prod-off', at));
      for (const t of turns) await send(t);
      for (const t of turns)
        await waitFor(
          async () => (await get<RunRecord>(`traces/${t.traceId}`)).body.state === 'scored',
          'a turn scored alone',
          10_000,
        );
      // No session is held (the driver assembles none), and none is recorded.
      expect(await held('prod-off')).toBe(false);
      expect((await get('sessions/prod-off')).status).toBe(404);
      const record = (await get<RunRecord>(`traces/${turns[2]!.traceId}`)).body;
      expect(record.results.map(r => [r.scorer, r.label])).toContainEqual(['tool_loops', 'pass']);
    });
  },
);

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import type { ResultSink } from '../../src/score/result-sink.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * A session part whose pass fails after its retries, through a live memory service: nothing
 * holds its turns after (a session still held is let go then), so its record ends `failed` with
 * why, its turns' records say they were not scored with it, and the log says that, never that a
 * next trace scores it again (the next trace opens the part after it, continuing `failed`).
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

type SessionRecord = RunRecord & { parts?: number[] };

/**
 * A downstream result sink that fails at each pass of session `sessionId` with a retryable
 * (upstream) error, as a store that is down does, counting the passes.
 */
function failingFor(sessionId: string): ResultSink & { passes: number; down: boolean } {
  const sink = {
    name: 'downstream',
    passes: 0,
    down: true,
    write: (run: Parameters<ResultSink['write']>[0]) => {
      if (run.session?.id !== sessionId) return;
      sink.passes++;
      if (sink.down) throw new SpanscoreError('SS_REDIS_FAILED', 'downstream store down');
    },
  };
  return sink;
}

async function start(sink: ResultSink, more: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-failed-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  const live = await startLiveService(
    'memory',
    {
      'export.enabled': false,
      'toolHealth.enabled': false,
      'sessions.idleMs': 600_000,
      'worker.attempts': 2,
      'worker.backoffMs': 10,
      suites: [join(dir, 'support.yaml')],
      ...more,
    },
    closers,
    undefined,
    { sinks: [sink] },
  );
  const session = (id: string, part = 1) =>
    live.get<SessionRecord>(`sessions/${encodeURIComponent(id)}${part > 1 ? `?part=${part}` : ''}`);
  const waiting = (t: { traceId: string }) =>
    waitFor(
      async () => (await live.get<RunRecord>(`traces/${t.traceId}`)).body.state === 'not_scored',
      `${t.traceId} waits for its session`,
      10_000,
    );
  return { ...live, session, waiting };
}

describe('a session pass that fails after its retries (memory driver)', () => {
  it('let go at maxOpen: its part ends failed with why, its turns say so, and the log does not promise a next pass', async () => {
    const sink = failingFor('conv-lost');
    const { send, get, session, waiting, lines, metrics } = await start(sink, {
      'sessions.maxOpen': 1,
    });
    const lost = [
      turn('conv-lost', ['lookup_order'], 0),
      turn('conv-lost', ['verify_identity'], 1),
    ];
    for (const t of lost) {
      await send(t);
      await waiting(t);
    }
    // A second session lets conv-lost go (maxOpen 1): scored at once, cut evicted; each try fails.
    const other = turn('conv-other', ['lookup_order'], 0);
    await send(other);
    await waitFor(
      async () => (await session('conv-lost')).body.state === 'failed',
      'part 1 of conv-lost ended failed',
      15_000,
    );
    expect(sink.passes).toBe(2);
    const part = (await session('conv-lost')).body;
    const gone =
      'the session was let go (cut evicted: sessions.maxOpen or sessions.maxBytes) and its turns are not held, so this part is not scored again';
    expect(part.reason).toBe(
      `scoring failed after its retries: downstream store down; part 1 of session "conv-lost" (2 turns): ${gone}`,
    );
    expect(part.session).toMatchObject({
      id: 'conv-lost',
      part: 1,
      traceIds: lost.map(t => t.traceId),
      cut: 'evicted',
    });
    for (const t of lost)
      expect((await get<RunRecord>(`traces/${t.traceId}`)).body.reason).toBe(
        `a turn of session "conv-lost", not scored with it: the pass of part 1 failed after its retries (downstream store down); ${gone}`,
      );
    expect(
      await scrapeMetric(metrics, 'spanscore_session_turns_dropped_total', { reason: 'failed' }),
    ).toBe(2);
    const said = lines.filter(l => l.includes('"conv-lost"'));
    expect(said).toEqual([
      `spanscore: session "conv-lost" part 1 failed after its retries: downstream store down; ${gone}; its record (session:conv-lost) and its 2 turns' records say so`,
    ]);
    // The session's next turn (ending it: scored at once) opens part 2; part 1 keeps its record.
    const next = turn('conv-lost', ['issue_refund'], 2, { 'spanscore.session.end': true }, null);
    await send(next);
    await waitFor(async () => (await session('conv-lost', 2)).status === 200, 'part 2', 15_000);
    expect((await session('conv-lost')).body.state).toBe('failed');
  }, 60_000);

  it('still held: its record ends failed visibly, its turns are kept, and its next turn scores the part again whole', async () => {
    // Let go at once instead (the behaviour before), a short outage split the conversation: part
    // 1 failed for good and its next turn opened part 2 without the turns before it.
    const sink = failingFor('conv-held');
    const { send, get, session, lines, metrics } = await start(sink, { 'sessions.idleMs': 300 });
    const first = turn('conv-held', ['lookup_order'], 0);
    await send(first);
    await waitFor(
      async () => (await session('conv-held')).body.state === 'failed',
      'part 1 of conv-held ended failed',
      15_000,
    );
    expect(sink.passes).toBe(2);
    const kept =
      "the session stays held with its turns: its next turn scores this part again, as do its let-go (at most sessions.maxAgeMs after its first turn) and the service's shutdown";
    expect((await session('conv-held')).body.reason).toBe(
      `scoring failed after its retries: downstream store down; part 1 of session "conv-held" (1 turn): ${kept}`,
    );
    // Its turn is not dropped: it is scored with its session later.
    expect((await get<RunRecord>(`traces/${first.traceId}`)).body.reason).not.toContain(
      'not scored with it',
    );
    // No sample: none dropped (the let-go test above counts 1).
    expect(
      await scrapeMetric(metrics, 'spanscore_session_turns_dropped_total', { reason: 'failed' }),
    ).toBeUndefined();
    expect(lines.filter(l => l.includes('"conv-held"'))).toEqual([
      `spanscore: session "conv-held" part 1 failed after its retries: downstream store down; ${kept}; its record (session:conv-held) says so`,
    ]);
    // The store is back; the next turn scores part 1 again, with both turns.
    sink.down = false;
    const second = turn('conv-held', ['verify_identity'], 1);
    await send(second);
    await waitFor(
      async () => (await session('conv-held')).body.state === 'scored',
      'part 1 scored again',
      15_000,
    );
    const part1 = (await session('conv-held')).body;
    expect(part1.session?.traceIds).toEqual([first.traceId, second.traceId]);
    expect((await session('conv-held', 2)).status).toBe(404);
  }, 60_000);
});

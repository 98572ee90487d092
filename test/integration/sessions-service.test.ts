import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord, StoredResult } from '../../src/results/stored-result.js';
import type { TraceListEntry } from '../../src/results/trace-list.js';
import { startLiveService } from '../helpers/live-service.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';
import { startOtlpBackend } from '../helpers/otlp-backend.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';

/**
 * Sessions through a live service on both drivers: each turn of a conversation is a trace sent
 * over OTLP/HTTP with `session.id` on its root (OpenInference's convention) and the session test
 * case's id; the service scores every trace as ever, then the session once it is idle, ended or
 * cut, and shows it at /api/v1/sessions, with its evaluation spans exported on the last turn.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function start(driver: 'memory' | 'bullmq', more: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  const backend = await startOtlpBackend();
  closers.push(() => backend.close());
  const live = await startLiveService(
    driver,
    {
      'export.url': backend.url,
      'export.batchDelayMs': 10,
      'toolHealth.enabled': false,
      'sessions.idleMs': 600,
      suites: [join(dir, 'support.yaml')],
      ...more,
    },
    closers,
  );
  const session = (id: string) => live.get<RunRecord>(`sessions/${encodeURIComponent(id)}`);
  return { ...live, session, backend };
}

const verdicts = (record: RunRecord) =>
  record.results.map(r => [r.scorer, r.label, r.reason] as const);

describe.each(['memory', 'bullmq'] as const)('sessions through serve (%s driver)', driver => {
  it('scores a conversation once it is idle: its record, results and evaluation spans', async () => {
    const { send, get, session, backend, metrics } = await start(driver);
    const first = turn('conv-a', ['lookup_order'], 0);
    const second = turn('conv-a', ['verify_identity', 'issue_refund'], 60_000);
    await send(first);
    await send(second);
    // Each turn is a trace of its own, not scored alone: it waits for its session.
    await waitFor(
      async () => (await get<RunRecord>(`traces/${second.traceId}`)).body.state === 'not_scored',
      'the second turn scored as a trace',
      10_000,
    );
    const waiting = (await get<RunRecord>(`traces/${second.traceId}`)).body;
    expect(waiting.reason).toBe(
      'a turn of session test case support / refund: scored with its session: after 600 ms idle, or at once when a turn marks the end (spanscore.session.end, or sessionEnd / session_end in its framework’s metadata)',
    );
    // While it waits, the turn shows its calls as any trace does (the Traces view's Tools, Calls).
    expect(waiting.toolCalls.map(c => c.name)).toEqual(['verify_identity', 'issue_refund']);
    const listedTurn = (await get<{ traces: TraceListEntry[] }>('traces')).body.traces.find(
      t => t.traceId === second.traceId,
    );
    expect([listedTurn?.tools, listedTurn?.toolCalls]).toEqual([
      ['verify_identity', 'issue_refund'],
      2,
    ]);
    await waitFor(
      async () => (await session('conv-a')).status === 200,
      'the session scored',
      15_000,
    );
    const record = (await session('conv-a')).body;
    expect(record).toMatchObject({
      traceId: 'session:conv-a',
      state: 'scored',
      testCaseId: 'refund',
      matched: ['support / refund'],
      session: {
        id: 'conv-a',
        part: 1,
        traceIds: [first.traceId, second.traceId],
        cut: null,
        cutReason: null,
        continues: null,
      },
    });
    expect(record.toolCalls.map(c => c.name)).toEqual([
      'lookup_order',
      'verify_identity',
      'issue_refund',
    ]);
    expect(verdicts(record)).toEqual([
      [
        'tool_trajectory',
        'pass',
        'trajectory matches across 2 turn(s); turn 1: trajectory matches (in_order); turn 2: trajectory matches (in_order); order kept (verify_identity before issue_refund)',
      ],
    ]);
    const listed = await get<{ sessions: TraceListEntry[] }>('sessions');
    expect(listed.body.sessions.map(s => [s.traceId, s.session])).toEqual([
      [
        'session:conv-a',
        { id: 'conv-a', part: 1, traces: 2, cut: null, cutReason: null, continues: null },
      ],
    ]);
    // The trace list keeps to traces.
    const traces = await get<{ traces: TraceListEntry[] }>('traces');
    expect(traces.body.traces.map(t => t.traceId).sort()).toEqual(
      [first.traceId, second.traceId].sort(),
    );
    const results = await get<{ results: StoredResult[] }>('results?window=1h');
    expect(results.body.results.map(r => [r.traceId, r.sessionId, r.label])).toEqual([
      [second.traceId, 'conv-a', 'pass'],
    ]);
    // The evaluation span is in the last turn, under its root, naming the session.
    await waitFor(() => backend.spans.length === 1, 'the evaluation span exported', 10_000);
    expect(backend.spans[0]).toMatchObject({
      traceId: second.traceId,
      parentSpanId: second.spans[0]!.spanId,
      name: 'evaluation tool_trajectory',
    });
    expect(backend.spans[0]!.attributes).toMatchObject({
      'spanscore.session.id': 'conv-a',
      'spanscore.session.turns': 2,
      'gen_ai.evaluation.score.label': 'pass',
    });
    await waitFor(
      async () => (await session('conv-a')).body.export?.state === 'exported',
      'the export recorded on the session',
      10_000,
    );
    // Counted as a session; its turns as traces not scored alone, with why.
    expect(
      await scrapeMetric(metrics, 'spanscore_sessions_scored_total', {
        state: 'scored',
        cut: 'none',
      }),
    ).toBe(1);
    expect(
      await scrapeMetric(metrics, 'spanscore_traces_not_scored_total', {
        reason: 'session_test_case',
      }),
    ).toBe(2);
  });

  it('scores at once when a trace ends the session, naming the failing turn', async () => {
    const { send, session } = await start(driver, { 'sessions.idleMs': 600_000 });
    const started = Date.now();
    await send(turn('conv-b', ['lookup_order', 'issue_refund'], 0));
    await send(turn('conv-b', ['verify_identity'], 60_000, { 'spanscore.session.end': true }));
    await waitFor(
      async () => (await session('conv-b')).status === 200,
      'the ended session scored',
      15_000,
    );
    expect(Date.now() - started).toBeLessThan(600_000);
    const record = (await session('conv-b')).body;
    expect(record.results[0]).toMatchObject({ scorer: 'tool_trajectory', label: 'fail' });
    expect(record.results[0]!.reason).toBe(
      'turn 2: trajectory does not match (in_order); missing: issue_refund (called in turn 1); out of order: issue_refund in turn 1 before any verify_identity (first in turn 2)',
    );
  });

  it('scores a session again when a trace comes after it was scored, replacing its results', async () => {
    const { send, get, session } = await start(driver);
    const first = turn('conv-c', ['lookup_order'], 0);
    await send(first);
    await waitFor(
      async () => (await session('conv-c')).status === 200,
      'the one-turn session scored',
      15_000,
    );
    expect(verdicts((await session('conv-c')).body)).toEqual([
      ['tool_trajectory', 'fail', 'turn 2: no such turn: the session has 1'],
    ]);
    const second = turn('conv-c', ['verify_identity', 'issue_refund'], 60_000);
    await send(second);
    await waitFor(
      async () => (await session('conv-c')).body.session?.traceIds.length === 2,
      'the session scored again',
      15_000,
    );
    expect(verdicts((await session('conv-c')).body).map(v => v[1])).toEqual(['pass']);
    // Replaced: one result for the session, counted once.
    const results = await get<{ results: StoredResult[] }>('results?window=1h');
    expect(results.body.results.map(r => [r.sessionId, r.label])).toEqual([['conv-c', 'pass']]);
    const summary = await get<{ total: { count: number; pass: number }; sessions: number }>(
      'summary?window=1h',
    );
    expect(summary.body.total).toMatchObject({ count: 1, pass: 1 });
    expect(summary.body.sessions).toBe(1);
  });

  it('holds a session a tagged trace opened, with its untagged turns; holds no untagged one', async () => {
    const { send, session, get, redis, prefix } = await start(driver, { 'sessions.idleMs': 300 });
    const tagged = turn('conv-t', ['lookup_order'], 0);
    const untagged = turn('conv-t', ['verify_identity', 'issue_refund'], 60_000, {}, null);
    await send(tagged);
    await send(untagged);
    const alone = turn('conv-u', ['lookup_order'], 0, {}, null);
    await send(alone);
    await waitFor(
      async () => (await session('conv-t')).body.session?.traceIds.length === 2,
      'the session with both turns',
      15_000,
    );
    expect(verdicts((await session('conv-t')).body).map(v => v[1])).toEqual(['pass']);
    // The trace without a session test case was scored on its own, and opened no session.
    await waitFor(
      async () => (await get<RunRecord>(`traces/${alone.traceId}`)).body.state === 'not_scored',
      'the untagged trace scored alone',
      10_000,
    );
    await new Promise(r => setTimeout(r, 600)); // past its idle time: nothing comes
    expect((await session('conv-u')).status).toBe(404);
    if (redis) expect(await redis.commands.exists(`${prefix}:session:{conv-u}`)).toBe(0);
  });

  it('scores a session as it stands at sessions.maxTraces, saying it was cut', async () => {
    const { send, get, session, lines, redis, prefix } = await start(driver, {
      'sessions.maxTraces': 2,
      'sessions.idleMs': 600_000,
    });
    await send(turn('conv-d', ['lookup_order'], 0));
    await send(turn('conv-d', ['verify_identity', 'issue_refund'], 60_000));
    await waitFor(
      async () => (await session('conv-d')).status === 200,
      'the full session scored',
      15_000,
    );
    const third = turn('conv-d', ['issue_refund'], 120_000);
    await send(third);
    // The cut part keeps its pass; the third trace opens part 2, which waits (both drivers).
    await waitFor(
      async () => {
        const open = await get<{
          sessions: Array<{ sessionId: string; part: number; traceIds: string[] }>;
        }>('sessions?state=open');
        return open.body.sessions.some(
          s => s.sessionId === 'conv-d' && s.part === 2 && s.traceIds.includes(third.traceId),
        );
      },
      'the third trace held in part 2',
      10_000,
    );
    if (driver === 'bullmq')
      expect(
        await redis!.commands.hexists(`${prefix}:session:{conv-d}:2`, `t:${third.traceId}`),
      ).toBe(1);
    expect((await session('conv-d')).body.session).toMatchObject({
      id: 'conv-d',
      part: 1,
      traceIds: expect.any(Array) as unknown,
      cut: 'max_traces',
      cutReason: expect.stringMatching(/^cut at 2 traces \(sessions\.maxTraces\)/) as unknown,
    });
    expect(lines.filter(l => l.includes('not added'))).toEqual([]);
  });
});

describe('sessions on the memory driver', () => {
  it('scores and lets go the oldest held session when sessions.maxOpen is reached', async () => {
    const { send, session, metrics } = await start('memory', {
      'sessions.maxOpen': 1,
      'sessions.idleMs': 600_000,
    });
    await send(turn('conv-e', ['lookup_order'], 0));
    await send(turn('conv-f', ['lookup_order'], 0));
    await waitFor(
      async () => (await session('conv-e')).status === 200,
      'the evicted session scored',
      15_000,
    );
    expect((await session('conv-e')).body.session).toMatchObject({ cut: 'evicted', part: 1 });
    expect((await session('conv-f')).status).toBe(404);
    expect(await scrapeMetric(metrics, 'spanscore_sessions_evicted_total')).toBe(1);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunRecord, StoredResult } from '../../src/results/stored-result.js';
import type { TraceListEntry } from '../../src/results/trace-list.js';
import { otlpRequest, type SpanInput } from '../helpers/otlp-json-builder.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * The memory driver's session bounds through the real `serve`: a session let go at
 * `sessions.maxOpen`, cut at `sessions.maxAgeMs` or `sessions.maxSessionBytes`, or refused at
 * `sessions.maxBytes` says so in its record, its results, the sessions list and /metrics; a later
 * turn opens the next part, which says what it continues, and never replaces part 1's result.
 */
const { run } = useProcessFixtures();

type SessionRecord = RunRecord & { parts: number[] };

async function serve(sessions: Record<string, number>) {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-session-bounds-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'queue: { driver: memory }',
      'assembly: { settleMs: 100 }',
      'export: { enabled: false }',
      'toolHealth: { enabled: false }',
      `sessions: ${JSON.stringify(sessions)}`,
    ].join('\n'),
  );
  const cli = run([
    'serve',
    '--config',
    join(dir, 'config.yaml'),
    '--suite',
    join(dir, 'support.yaml'),
    '--port',
    '0',
    '--host',
    '127.0.0.1',
  ]);
  const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
  const origin = new URL(url).origin;
  const send = async (t: { spans: SpanInput[] }) => {
    const response = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(otlpRequest(t.spans)),
    });
    expect(response.status).toBe(200);
  };
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${origin}/api/v1/${path}`);
    return { status: response.status, body: (await response.json()) as T };
  };
  const session = (id: string, part = 1) =>
    get<SessionRecord>(`sessions/${encodeURIComponent(id)}${part > 1 ? `?part=${part}` : ''}`);
  const scored = (id: string, part = 1) =>
    waitFor(async () => (await session(id, part)).status === 200, `${id} part ${part}`, 15_000);
  return { cli, send, get, session, scored, metrics: `${origin}/metrics` };
}

const sessionsScored = (metrics: string, cut: string) =>
  scrapeMetric(metrics, 'spanscore_sessions_scored_total', { state: 'scored', cut });

// A root attribute that makes a turn hold ~5,000 bytes (the root is kept of a held turn).
const big = { 'app.note': 'n'.repeat(5_000) };

describe('memory driver session bounds through serve', () => {
  it('a session let go at maxOpen is scored cut evicted; its late turn is part 2 and part 1 stays', async () => {
    const { send, get, session, scored, metrics } = await serve({ maxOpen: 1, idleMs: 600_000 });
    const e1 = turn('conv-e', ['lookup_order'], 0);
    const e2 = turn('conv-e', ['verify_identity', 'issue_refund'], 60_000, {}, null);
    await send(e1);
    await send(e2);
    await waitFor(
      async () =>
        (await get<{ sessions: unknown[] }>('sessions?state=open')).body.sessions.length === 1 &&
        (await get<{ sessions: Array<{ traceIds: string[] }> }>('sessions?state=open')).body
          .sessions[0]!.traceIds.length === 2,
      'both turns held',
      15_000,
    );
    await send(turn('conv-f', ['lookup_order'], 0));
    await scored('conv-e');
    const part1 = (await session('conv-e')).body;
    expect(part1).toMatchObject({
      traceId: 'session:conv-e',
      session: {
        id: 'conv-e',
        part: 1,
        traceIds: [e1.traceId, e2.traceId],
        cut: 'evicted',
        continues: null,
      },
    });
    expect(part1.session!.cutReason).toMatch(/sessions\.maxOpen/);
    expect(part1.results.map(r => r.label)).toEqual(['pass']);
    // A late turn without the test case id: conv-e's part 2, ended at once.
    const late = turn('conv-e', ['issue_refund'], 120_000, { 'spanscore.session.end': true }, null);
    await send(late);
    await scored('conv-e', 2);
    const part2 = (await session('conv-e', 2)).body;
    expect(part2).toMatchObject({
      traceId: 'session~2:conv-e',
      session: { id: 'conv-e', part: 2, traceIds: [late.traceId], cut: null, continues: 'evicted' },
      parts: [1, 2],
    });
    // Part 1 was not replaced: its record and result are as they were.
    expect((await session('conv-e')).body).toMatchObject({
      session: { part: 1, traceIds: [e1.traceId, e2.traceId], cut: 'evicted' },
      parts: [1, 2],
    });
    const results = (await get<{ results: StoredResult[] }>('results?window=1h')).body.results;
    const ofE = results
      .filter(r => r.sessionId === 'conv-e')
      .map(r => [r.sessionPart ?? 1, r.traceId, r.label]);
    expect(ofE.sort()).toEqual([
      [1, e2.traceId, 'pass'],
      [2, late.traceId, 'fail'],
    ]);
    // Each part is its own row of the sessions list.
    const listed = (await get<{ sessions: TraceListEntry[] }>('sessions')).body.sessions;
    expect(
      listed
        .filter(s => s.session?.id === 'conv-e')
        .map(s => [s.traceId, s.session?.part, s.session?.cut, s.session?.continues]),
    ).toEqual([
      ['session~2:conv-e', 2, null, 'evicted'],
      ['session:conv-e', 1, 'evicted', null],
    ]);
    // conv-f was let go for conv-e's part 2: scored as it stood, evicted too.
    await scored('conv-f');
    expect((await session('conv-f')).body.session).toMatchObject({ cut: 'evicted' });
    expect(await sessionsScored(metrics, 'evicted')).toBe(2);
    expect(await sessionsScored(metrics, 'none')).toBe(1);
    expect(await scrapeMetric(metrics, 'spanscore_sessions_evicted_total')).toBe(2);
  });

  it('a session scored once idle, then let go at maxOpen: its late turn is part 2, continuing idle, as part 1 (no cut) says', async () => {
    const { send, get, session, scored } = await serve({ maxOpen: 1, idleMs: 300 });
    const first = turn('conv-i', ['lookup_order'], 0);
    await send(first);
    await scored('conv-i');
    // Scored whole once idle: no cut.
    expect((await session('conv-i')).body.session).toMatchObject({ part: 1, cut: null });
    // Another session lets conv-i go (maxOpen 1); it waits for nothing, so it is not scored again.
    await send(turn('conv-j', ['lookup_order'], 0));
    await scored('conv-j');
    const late = turn('conv-i', ['issue_refund'], 120_000, { 'spanscore.session.end': true }, null);
    await send(late);
    await scored('conv-i', 2);
    expect((await session('conv-i', 2)).body.session).toMatchObject({
      part: 2,
      traceIds: [late.traceId],
      cut: null,
      continues: 'idle',
    });
    expect((await session('conv-i')).body.session).toMatchObject({ part: 1, cut: null });
    const listed = (await get<{ sessions: TraceListEntry[] }>('sessions')).body.sessions;
    expect(listed.find(s => s.traceId === 'session~2:conv-i')?.session?.continues).toBe('idle');
  });

  it('scores a session cut at maxAgeMs; a turn after opens part 2, continuing max_age', async () => {
    const { send, session, scored, metrics } = await serve({ maxAgeMs: 1_500, idleMs: 600_000 });
    const first = turn('conv-g', ['lookup_order'], 0);
    await send(first);
    await scored('conv-g');
    expect((await session('conv-g')).body.session).toMatchObject({
      part: 1,
      traceIds: [first.traceId],
      cut: 'max_age',
    });
    const late = turn(
      'conv-g',
      ['verify_identity'],
      60_000,
      { 'spanscore.session.end': true },
      null,
    );
    await send(late);
    await scored('conv-g', 2);
    expect((await session('conv-g', 2)).body.session).toMatchObject({
      part: 2,
      traceIds: [late.traceId],
      continues: 'max_age',
    });
    expect((await session('conv-g')).body.session!.traceIds).toEqual([first.traceId]);
    expect(await sessionsScored(metrics, 'max_age')).toBe(1);
  });

  it('cuts a session at maxSessionBytes and refuses a new one at maxBytes, scoring its turn alone', async () => {
    const { send, get, session, scored, metrics, cli } = await serve({
      maxSessionBytes: 8_000,
      maxBytes: 8_000,
      idleMs: 600_000,
    });
    const h1 = turn('conv-h', ['lookup_order'], 0, big);
    const h2 = turn('conv-h', ['verify_identity', 'issue_refund'], 60_000, big, null);
    await send(h1);
    await send(h2);
    await scored('conv-h');
    expect((await session('conv-h')).body.session).toMatchObject({
      part: 1,
      traceIds: [h1.traceId],
      cut: 'max_bytes',
    });
    // The second turn is held as part 2, waiting: the open sessions say when it will be scored.
    type Open = {
      sessionId: string;
      part: number;
      traceIds: string[];
      scoreAtMs: number | null;
      bytes: number;
      state: string;
    };
    let open: Open[] = [];
    await waitFor(
      async () => {
        open = (await get<{ sessions: Open[] }>('sessions?state=open')).body.sessions;
        return open.length === 1;
      },
      'part 2 open',
      15_000,
    );
    expect(open[0]).toMatchObject({
      sessionId: 'conv-h',
      part: 2,
      traceIds: [h2.traceId],
      state: 'open',
    });
    expect(open[0]!.scoreAtMs).toBeGreaterThan(Date.now());
    expect(open[0]!.bytes).toBeGreaterThan(5_000);
    // A new session does not fit beside it: its turn is scored alone, and counted.
    const k1 = turn('conv-k', ['lookup_order'], 0, big);
    await send(k1);
    await scored('conv-k');
    const k = (await session('conv-k')).body;
    expect(k.session).toMatchObject({ part: 1, traceIds: [k1.traceId], cut: 'max_bytes' });
    expect(k.session!.cutReason).toMatch(/sessions\.maxBytes/);
    expect(
      await scrapeMetric(metrics, 'spanscore_sessions_refused_total', { reason: 'max_bytes' }),
    ).toBe(1);
    expect(await sessionsScored(metrics, 'max_bytes')).toBe(2);
    expect(cli.stderr() + cli.stdout()).toMatch(/session "conv-k" not held: sessions\.maxBytes/);
    // Still open, not replaced: conv-h part 2 is the one session held.
    expect(
      (await get<{ sessions: Open[] }>('sessions?state=open')).body.sessions.map(s => s.sessionId),
    ).toEqual(['conv-h']);
  });

  it('counts a turn of a session forgotten by the let-go record, and its run record says so', async () => {
    // maxOpen 1: the let-go record keeps 10 sessions (10 × maxOpen).
    const { send, get, metrics } = await serve({ maxOpen: 1, idleMs: 600_000 });
    type Open = { sessions: Array<{ sessionId: string }> };
    await send(turn('conv-0', ['lookup_order'], 0));
    await waitFor(
      async () => (await get<Open>('sessions?state=open')).body.sessions[0]?.sessionId === 'conv-0',
      'conv-0 held first',
      15_000,
    );
    // One at a time: traces are scored concurrently, so sessions sent at once may open in any
    // order (in one CI run conv-2 opened last: held, not let go, its late turn joined part 1).
    for (let i = 1; i <= 11; i++) {
      await send(turn(`conv-${i}`, ['lookup_order'], 0));
      await waitFor(
        async () =>
          (await get<Open>('sessions?state=open')).body.sessions[0]?.sessionId === `conv-${i}`,
        `conv-${i} held`,
        15_000,
      );
    }
    await waitFor(
      async () => (await scrapeMetric(metrics, 'spanscore_sessions_evicted_total')) === 11,
      'eleven sessions let go',
      20_000,
    );
    const late = turn('conv-0', ['verify_identity'], 60_000, {}, null);
    await send(late);
    await waitFor(
      async () =>
        (await scrapeMetric(metrics, 'spanscore_session_turns_dropped_total', {
          reason: 'forgotten',
        })) === 1,
      'the late turn counted as dropped',
      15_000,
    );
    const record = (await get<RunRecord>(`traces/${late.traceId}`)).body;
    expect(record.diagnostics).toContainEqual({
      code: 'session_turn_dropped',
      message: expect.stringMatching(
        /^not scored with its session "conv-0": the session was let go at a bound \(evicted: sessions\.maxOpen or sessions\.maxBytes\)/,
      ) as unknown,
    });
    // Its reason says so too, and at which bound: not what a trace of no session says.
    expect(record.reason).toMatch(
      /^a turn of session "conv-0", not scored with it: part 1 of the session was let go at a bound \(evicted: sessions\.maxOpen or sessions\.maxBytes\), and no record of it was left .*10 × sessions\.maxOpen/,
    );
    // conv-0's part 1 no longer reads as the whole conversation: partial, and how many came after.
    const partial = (n: string) =>
      new RegExp(
        `^partial: ${n} of session "conv-0" came after this part was let go at a bound \\(evicted: sessions\\.maxOpen or sessions\\.maxBytes\\).*not the whole conversation$`,
      );
    await waitFor(
      async () =>
        partial('at least 1 later turn').test(
          (await get<RunRecord>('sessions/conv-0')).body.reason ?? '',
        ),
      'conv-0 part 1 said partial',
      15_000,
    );
    const again = turn('conv-0', ['issue_refund'], 120_000, {}, null);
    await send(again);
    await waitFor(
      async () =>
        partial('at least 2 later turns').test(
          (await get<RunRecord>('sessions/conv-0')).body.reason ?? '',
        ),
      'conv-0 part 1 said partial, 2 turns',
      15_000,
    );
    // The third is counted, and the record is not rewritten for it; the fourth rewrites it.
    const dropped = () =>
      scrapeMetric(metrics, 'spanscore_session_turns_dropped_total', { reason: 'forgotten' });
    await send(turn('conv-0', ['issue_refund'], 130_000, {}, null));
    await waitFor(async () => (await dropped()) === 3, 'the third late turn dropped', 15_000);
    await new Promise(r => setTimeout(r, 300)); // a rewrite, were there one, is done in a tick
    expect((await get<RunRecord>('sessions/conv-0')).body.reason).toMatch(
      partial('at least 2 later turns'),
    );
    await send(turn('conv-0', ['issue_refund'], 140_000, {}, null));
    await waitFor(
      async () =>
        partial('at least 4 later turns').test(
          (await get<RunRecord>('sessions/conv-0')).body.reason ?? '',
        ),
      'conv-0 part 1 said partial, 4 turns',
      15_000,
    );
    // Its results and its session stay as they were.
    expect((await get<RunRecord>('sessions/conv-0')).body).toMatchObject({
      state: 'scored',
      session: { part: 1, cut: 'evicted' },
    });
    // A turn of a session still on the record continues it instead.
    const late1 = turn(
      'conv-2',
      ['verify_identity'],
      60_000,
      { 'spanscore.session.end': true },
      null,
    );
    await send(late1);
    await waitFor(
      async () => (await get<RunRecord>('sessions/conv-2?part=2')).status === 200,
      'conv-2 part 2',
      15_000,
    );
    expect(
      await scrapeMetric(metrics, 'spanscore_session_turns_dropped_total', { reason: 'forgotten' }),
    ).toBe(4); // conv-0's four, none of conv-2
  });
});

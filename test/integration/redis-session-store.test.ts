import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { RedisSessionStore, type SessionStoreBounds } from '../../src/redis/redis-session-store.js';
import { sessionKeys } from '../../src/redis/session-keys.js';
import { encodeSpanBatch } from '../../src/redis/span-batch-codec.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { commandCalls } from '../helpers/command-calls.js';
import { addAsPreviousRelease } from '../helpers/previous-session-layout.js';
import { startRedisCluster } from '../helpers/redis-cluster.js';
import { startRedisServer } from '../helpers/redis-server.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const BOUNDS: SessionStoreBounds = {
  idleMs: 10_000,
  maxTraces: 50,
  maxAgeMs: 60_000,
  maxSessionBytes: 1_000_000,
  maxBytes: 10_000_000,
  lifeMs: 120_000,
};

/** A session store on a Redis server of the test's own (its command counts are the test's alone). */
async function store(bounds: Partial<SessionStoreBounds> = {}) {
  const server = await startRedisServer();
  closers.push(() => server.stop());
  const commands = createRedisConnection(server.url, 'commands');
  closers.push(() => commands.quit());
  await whenReady(commands);
  const probe = new Redis(server.url);
  closers.push(() => probe.quit());
  const clock = { now: 1_000 };
  const sessions = new RedisSessionStore(commands, 'p', { ...BOUNDS, ...bounds }, () => clock.now);
  return { sessions, probe, commands, clock };
}

const spans = (t: number): SpanDigest[] => childSpans(t, ['root', 'tool']);
/** The bytes a turn of {@link spans} holds, as the store's span batch encodes it. */
const sizeOf = (s: readonly SpanDigest[]) => encodeSpanBatch(s).length;
const tagged = { opens: true, ends: false };
const untagged = { opens: false, ends: false };
const ids = (part: { traces: Array<{ traceId: string }> } | undefined) =>
  part?.traces.map(t => t.traceId).sort();

describe('RedisSessionStore on a real Redis', () => {
  it('opens a session only for a tagged trace, then takes later turns tagged or not; an untagged trace with no session costs one HMGET', async () => {
    const { sessions, probe } = await store();
    // ioredis sends a script with EVAL the first time: not counted.
    await sessions.add('s-0', traceId(9), spans(9), 1_000, untagged);
    const before = await commandCalls(probe);
    const alone = await sessions.add('s-1', traceId(1), spans(1), 1_000, untagged);
    expect(alone.outcome).toBe('no_session');
    const after = await commandCalls(probe);
    const delta = (command: string) => (after.get(command) ?? 0) - (before.get(command) ?? 0);
    expect(
      [...after]
        .filter(([c]) => c !== 'info' && delta(c) > 0)
        .map(([c]) => [c, delta(c)])
        .sort(),
    ).toEqual([
      ['evalsha', 1],
      ['hmget', 1],
    ]);
    expect(await probe.exists('p:session:{s-1}')).toBe(0);

    const opened = await sessions.add('s-1', traceId(2), spans(2), 2_000, tagged);
    expect(opened).toMatchObject({ outcome: 'added', part: 1, traces: 1, firstAtMs: 2_000 });
    // Due idleMs after it; kept a life after it, past maxAgeMs + idleMs.
    expect(opened.delayMs).toBe(BOUNDS.idleMs);
    const ttl = await probe.pttl('p:session:{s-1}');
    expect(ttl).toBeGreaterThan(BOUNDS.maxAgeMs + BOUNDS.idleMs);
    expect(ttl).toBeLessThanOrEqual(BOUNDS.lifeMs);

    const joined = await sessions.add('s-1', traceId(3), spans(3), 3_000, untagged);
    expect(joined).toMatchObject({ outcome: 'added', part: 1, traces: 2, firstAtMs: 2_000 });
    // The same trace again (a retried trace job) replaces itself.
    const again = await sessions.add('s-1', traceId(3), spans(3), 3_500, untagged);
    expect(again).toMatchObject({ outcome: 'added', part: 1, traces: 2 });
    const read = await sessions.read('s-1', 1);
    expect(ids(read)).toEqual([traceId(2), traceId(3)].sort());
    expect(read).toMatchObject({ firstAtMs: 2_000, lastAtMs: 3_500, cut: undefined });
    expect(read?.bytes).toBe(sizeOf(spans(2)) + sizeOf(spans(3)));
    expect(
      read?.traces.every(
        t =>
          t.spans
            .map(s => s.name)
            .sort()
            .join() === 'root,tool',
      ),
    ).toBe(true);
    expect(await sessions.read('s-2', 1)).toBeUndefined();
    expect(await sessions.totalBytes()).toBe(read?.bytes);
  });

  it('cuts a part at maxTraces and opens the next, which continues it; the cut part keeps its turns until its pass has run', async () => {
    const { sessions } = await store({ maxTraces: 2 });
    await sessions.add('s-1', traceId(1), spans(1), 1_000, tagged);
    const second = await sessions.add('s-1', traceId(2), spans(2), 2_000, tagged);
    expect(second).toMatchObject({ outcome: 'added', part: 1, traces: 2, cut: 'max_traces' });
    expect(second.delayMs).toBe(0);
    const third = await sessions.add('s-1', traceId(3), spans(3), 3_000, untagged);
    expect(third).toMatchObject({ outcome: 'added', part: 2, traces: 1, firstAtMs: 3_000 });
    expect(third.closed).toBeUndefined(); // part 1 was cut before, its pass already due
    const fourth = await sessions.add('s-1', traceId(4), spans(4), 4_000, untagged);
    expect(fourth).toMatchObject({ outcome: 'added', part: 2, traces: 2, cut: 'max_traces' });

    const part1 = await sessions.read('s-1', 1);
    expect(ids(part1)).toEqual([traceId(1), traceId(2)].sort());
    expect(part1).toMatchObject({ cut: 'max_traces', continues: undefined });
    const part2 = await sessions.read('s-1', 2);
    expect(ids(part2)).toEqual([traceId(3), traceId(4)].sort());
    expect(part2).toMatchObject({ cut: 'max_traces', continues: 'max_traces' });
    const total = await sessions.totalBytes();
    expect(total).toBe(part1!.bytes + part2!.bytes);

    // Part 1's pass ran: its turns are given back, and its bytes leave the total.
    await sessions.passEnded('s-1', 1, part1!, 'max_traces');
    expect(await sessions.read('s-1', 1)).toBeUndefined();
    expect(await sessions.totalBytes()).toBe(part2!.bytes);
    // Part 2 is full too: a fifth turn opens part 3.
    const fifth = await sessions.add('s-1', traceId(5), spans(5), 5_000, tagged);
    expect(fifth).toMatchObject({ outcome: 'added', part: 3, traces: 1 });
    expect((await sessions.read('s-1', 3))?.continues).toBe('max_traces');
  });

  it('keeps a part a turn ended ended: a turn after it, such as an earlier turn scored later, is due at once, not idleMs later', async () => {
    const { sessions, probe } = await store();
    // Traces are scored in any order: the end-marked last turn may be added first.
    const last = await sessions.add('s-1', traceId(2), spans(2), 1_000, {
      opens: true,
      ends: true,
    });
    expect(last).toMatchObject({ outcome: 'added', part: 1, traces: 1, delayMs: 0 });
    const earlier = await sessions.add('s-1', traceId(1), spans(1), 2_000, untagged);
    expect(earlier).toMatchObject({ outcome: 'added', part: 1, traces: 2, delayMs: 0 });
    // The mark is on the part, not on the session: another session still waits idleMs.
    const other = await sessions.add('s-2', traceId(3), spans(3), 2_000, tagged);
    expect(other.delayMs).toBe(BOUNDS.idleMs);
    expect(await probe.hget(sessionKeys('p', 's-2').base, 'end')).toBeNull();
    // A turn that ends a held part marks it too.
    await sessions.add('s-2', traceId(4), spans(4), 3_000, { opens: false, ends: true });
    const after = await sessions.add('s-2', traceId(5), spans(5), 4_000, untagged);
    expect(after).toMatchObject({ part: 1, traces: 3, delayMs: 0 });
  });

  it('closes a part maxAgeMs after its first turn: a later turn opens the next part, and the closed part is due at once with all its turns', async () => {
    const { sessions } = await store({ maxAgeMs: 10_000, idleMs: 4_000 });
    await sessions.add('s-1', traceId(1), spans(1), 1_000, tagged);
    // 8 s in: due when the part is 10 s old (2 s from now), not idleMs after.
    const second = await sessions.add('s-1', traceId(2), spans(2), 9_000, untagged);
    expect(second).toMatchObject({ part: 1, delayMs: 2_000 });
    const late = await sessions.add('s-1', traceId(3), spans(3), 11_000, untagged);
    expect(late).toMatchObject({ outcome: 'added', part: 2, traces: 1 });
    expect(late.closed).toEqual({ part: 1, cut: 'max_age' });
    const part1 = await sessions.read('s-1', 1);
    expect(ids(part1)).toEqual([traceId(1), traceId(2)].sort());
    expect(part1?.cut).toBe('max_age');
    expect((await sessions.read('s-1', 2))?.continues).toBe('max_age');
  });

  it('cuts a part at maxSessionBytes: a turn that would pass it opens the next part; a turn larger on its own is held, cut at once', async () => {
    const one = sizeOf(spans(1));
    const { sessions } = await store({ maxSessionBytes: Math.floor(one * 2.5) });
    await sessions.add('s-1', traceId(1), spans(1), 1_000, tagged);
    expect(await sessions.add('s-1', traceId(2), spans(2), 2_000, tagged)).toMatchObject({
      part: 1,
      traces: 2,
      cut: undefined,
    });
    const third = await sessions.add('s-1', traceId(3), spans(3), 3_000, tagged);
    expect(third).toMatchObject({ outcome: 'added', part: 2, traces: 1 });
    expect(third.closed).toEqual({ part: 1, cut: 'max_bytes' });
    expect((await sessions.read('s-1', 1))?.bytes).toBeLessThanOrEqual(one * 2.5);

    const big = childSpans(9, ['root', ...Array.from({ length: 12 }, () => 'tool')]);
    expect(sizeOf(big)).toBeGreaterThan(one * 2.5);
    const alone = await sessions.add('s-2', traceId(9), big, 1_000, tagged);
    expect(alone).toMatchObject({ outcome: 'added', part: 1, traces: 1, cut: 'max_bytes' });
    expect(alone.delayMs).toBe(0);
  });

  it('refuses a new session when the bytes all sessions hold are full; held sessions go on; bytes leave the total when a part is released or expires', async () => {
    const one = sizeOf(spans(1));
    const { sessions, clock } = await store({ maxBytes: Math.floor(one * 2.5), lifeMs: 5_000 });
    expect((await sessions.add('a', traceId(1), spans(1), 1_000, tagged)).outcome).toBe('added');
    expect((await sessions.add('b', traceId(2), spans(2), 1_000, tagged)).outcome).toBe('added');
    const refused = await sessions.add('c', traceId(3), spans(3), 1_000, tagged);
    expect(refused.outcome).toBe('refused');
    expect(await sessions.read('c', 1)).toBeUndefined();
    // A held session takes its turn, past the total.
    expect(await sessions.add('a', traceId(4), spans(4), 1_500, tagged)).toMatchObject({
      outcome: 'added',
      traces: 2,
    });
    expect(await sessions.totalBytes()).toBe(
      sizeOf(spans(1)) + sizeOf(spans(2)) + sizeOf(spans(4)),
    );
    // Parts expire a life (5 s) after their first turn: the next call takes their bytes out.
    clock.now = 6_001;
    expect(await sessions.totalBytes()).toBe(0);
    // Its next turn is held (the refused one stays refused, as the part it was scored alone as).
    expect((await sessions.add('c', traceId(5), spans(5), 6_001, tagged)).outcome).toBe('added');
    expect(await sessions.totalBytes()).toBe(sizeOf(spans(5)));
  });

  it('marks a part admission refused: the next turn opens the part after it, continuing max_bytes, never a part 1 without the refused turn', async () => {
    const one = sizeOf(spans(1));
    const { sessions, probe } = await store({ maxBytes: one * 3 });
    await sessions.add('a', traceId(1), spans(1), 1_000, tagged);
    // A large first turn does not fit: refused, nothing of it held.
    const big = childSpans(2, ['root', ...Array.from({ length: 12 }, () => 'tool')]);
    const refused = await sessions.add('c', traceId(2), big, 1_000, {
      ...tagged,
      testCaseId: 'conv',
    });
    expect(refused.outcome).toBe('refused');
    // The next, small turn fits: it opens part 2, which says the part before it was cut.
    const next = await sessions.add('c', traceId(3), spans(3), 2_000, untagged);
    expect(next).toMatchObject({ outcome: 'added', part: 2, traces: 1 });
    expect(await sessions.read('c', 1)).toBeUndefined();
    expect(await sessions.read('c', 2)).toMatchObject({
      continues: 'max_bytes',
      testCaseId: 'conv',
      traces: [{ traceId: traceId(3) }],
    });
    // The mark lives as a part does, and its bytes are counted apart from the turns'.
    expect(await probe.pttl(sessionKeys('p', 'c').base)).toBeLessThanOrEqual(BOUNDS.lifeMs);
    expect(await sessions.totalBytes()).toBe(one + sizeOf(spans(3)));
    expect(Number(await probe.get('p:sessions:{sessions}:marks'))).toBeGreaterThan(0);
  });

  it('says what a refused turn is scored alone as; adding it again (a retried job) is refused as that part again, never added to a later one', async () => {
    const { sessions, probe } = await store({ maxBytes: 1 });
    const marks = async () => Number(await probe.get('p:sessions:{sessions}:marks'));
    const first = await sessions.add('c', traceId(1), spans(1), 1_000, {
      ...tagged,
      testCaseId: 'conv',
    });
    expect(first).toMatchObject({
      outcome: 'refused',
      part: 1,
      refused: { continues: undefined, testCaseId: 'conv', marked: true, again: false },
    });
    // The next turn, untagged, would open part 2: refused too, continuing part 1's max_bytes.
    const second = await sessions.add('c', traceId(2), spans(2), 2_000, untagged);
    expect(second).toMatchObject({
      outcome: 'refused',
      part: 2,
      refused: { continues: 'max_bytes', testCaseId: 'conv', marked: true, again: false },
    });
    const marked = await marks();
    // Each added again, after the session moved on: refused as its own part again, nothing marked.
    for (const [t, part] of [
      [1, 1],
      [2, 2],
    ] as const)
      expect(await sessions.add('c', traceId(t), spans(t), 3_000, untagged)).toMatchObject({
        outcome: 'refused',
        part,
        refused: { marked: true, again: true },
      });
    expect(await marks()).toBe(marked);
    expect(await probe.hget(sessionKeys('p', 'c').base, 'part')).toBe('2');
    expect(await sessions.totalBytes()).toBe(0);
  });

  it('marks refused parts within 1/16 of maxBytes: past it a refused part is not marked', async () => {
    const { sessions, probe } = await store({ maxBytes: 65_536 * 16 });
    const huge = childSpans(1, ['root', ...Array.from({ length: 12 }, () => 'tool')]);
    const fill = await probe.set('p:sessions:{sessions}:total', String(65_536 * 16));
    expect(fill).toBe('OK');
    const id = (i: number) => `s-${i}-${'x'.repeat(200)}`;
    for (let i = 0; i < 200; i++)
      expect((await sessions.add(id(i), traceId(i), huge, 1_000, tagged)).outcome).toBe('refused');
    expect(Number(await probe.get('p:sessions:{sessions}:marks'))).toBeLessThanOrEqual(65_536);
    expect(await probe.exists(sessionKeys('p', id(0)).base)).toBe(1);
    expect(await probe.exists(sessionKeys('p', id(199)).base)).toBe(0);
    // Not marked, still scored alone: its part says so.
    expect((await sessions.add(id(199), traceId(199), huge, 1_000, tagged)).refused).toEqual({
      continues: undefined,
      testCaseId: undefined,
      marked: false,
      again: false,
    });
  });

  it('reads a part’s turns in the order they came, which a pass keeps between turns that started at the same time', async () => {
    const { sessions } = await store();
    // Every root starts at 0 ms: only the order they came tells the turns apart.
    const came = [1, 920, 839, 758, 677, 596, 515, 434].map(n => traceId(n));
    for (const [i, id] of came.entries())
      await sessions.add('s-1', id, childSpans(i, ['root']), 1_000 + i, tagged);
    expect((await sessions.read('s-1', 1))?.traces.map(t => t.traceId)).toEqual(came);
  });

  it('reads and takes over a session the previous release wrote (first and t:<trace id> fields)', async () => {
    const { sessions, commands, probe } = await store();
    for (const [n, at] of [
      [1, 1_000],
      [2, 2_000],
    ] as const)
      expect(
        await addAsPreviousRelease(commands, 'p', {
          id: 'old',
          traceId: traceId(n),
          spans: spans(n),
          nowMs: at,
        }),
      ).toEqual([1, n, 1_000]);
    const read = await sessions.read('old', 1);
    expect(ids(read)).toEqual([traceId(1), traceId(2)].sort());
    expect(read).toMatchObject({ firstAtMs: 1_000, cut: undefined, continues: undefined });
    expect(read?.bytes).toBe(sizeOf(spans(1)) + sizeOf(spans(2)));

    // A turn for it now joins it, counted with the turns it held.
    const joined = await sessions.add('old', traceId(3), spans(3), 3_000, untagged);
    expect(joined).toMatchObject({ outcome: 'added', part: 1, traces: 3, firstAtMs: 1_000 });
    expect(ids(await sessions.read('old', 1))).toEqual([traceId(1), traceId(2), traceId(3)].sort());
    expect(await sessions.totalBytes()).toBe(
      sizeOf(spans(1)) + sizeOf(spans(2)) + sizeOf(spans(3)),
    );
    expect(await probe.pttl('p:session:{old}')).toBeGreaterThan(BOUNDS.maxAgeMs);
  });

  it('lists the parts waiting for a pass, soonest first, with their turns in the order they came', async () => {
    const { sessions } = await store({ idleMs: 10_000 });
    await sessions.add('late', traceId(1), spans(1), 5_000, tagged);
    await sessions.add('soon', traceId(2), spans(2), 1_000, tagged);
    await sessions.add('soon', traceId(4), spans(4), 2_000, tagged);
    await sessions.add('soon', traceId(3), spans(3), 3_000, tagged);
    expect(await sessions.openSessions(10)).toEqual([
      {
        sessionId: 'soon',
        part: 1,
        traceIds: [traceId(2), traceId(4), traceId(3)],
        firstAtMs: 1_000,
        lastAtMs: 3_000,
        scoreAtMs: 13_000,
        bytes: sizeOf(spans(2)) + sizeOf(spans(4)) + sizeOf(spans(3)),
      },
      {
        sessionId: 'late',
        part: 1,
        traceIds: [traceId(1)],
        firstAtMs: 5_000,
        lastAtMs: 5_000,
        scoreAtMs: 15_000,
        bytes: sizeOf(spans(1)),
      },
    ]);
    expect((await sessions.openSessions(1)).map(s => s.sessionId)).toEqual(['soon']);
    // A pass under way has no time to be scored at; once run, the part is no longer listed.
    await sessions.passStarted('late', 1);
    expect((await sessions.openSessions(10)).map(s => [s.sessionId, s.scoreAtMs])).toEqual([
      ['late', undefined],
      ['soon', 13_000],
    ]);
    const late = await sessions.read('late', 1);
    await sessions.passEnded('late', 1, late!, undefined);
    expect((await sessions.openSessions(10)).map(s => s.sessionId)).toEqual(['soon']);
    // Kept for a late turn, which makes it due again.
    expect(ids(await sessions.read('late', 1))).toEqual([traceId(1)]);
    await sessions.add('late', traceId(5), spans(5), 6_000, untagged);
    expect((await sessions.openSessions(10)).map(s => s.sessionId)).toEqual(['soon', 'late']);
  });

  it('keeps every script on one slot of a cluster, for hostile ids too', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    closers.push(() => cluster.stop());
    const commands = createRedisConnection({ clusterNodes: cluster.nodes }, 'commands');
    closers.push(() => commands.quit());
    await whenReady(commands, 5000);
    const sessions = new RedisSessionStore(commands, 'p', { ...BOUNDS, maxTraces: 2 }, () => 1_000);
    const hostile = ['conv-1', '}x', 'a}b', '~}x', '{', 'x}:2'];
    let n = 0x200;
    for (const id of hostile) {
      const turns = [n++, n++, n++];
      for (const t of turns) await sessions.add(id, traceId(t), spans(t), 1_000, tagged);
      // Two parts: the first cut at maxTraces, the second holding the third turn.
      expect(ids(await sessions.read(id, 1)), id).toEqual(turns.slice(0, 2).map(traceId).sort());
      expect(ids(await sessions.read(id, 2)), id).toEqual([traceId(turns[2]!)]);
    }
    const open = await sessions.openSessions(100);
    expect(open.map(o => `${o.part}:${o.sessionId}`).sort()).toEqual(
      hostile.flatMap(id => [`1:${id}`, `2:${id}`]).sort(),
    );
    const part1 = await sessions.read('}x', 1);
    const before = await sessions.totalBytes();
    await sessions.passEnded('}x', 1, part1!, 'max_traces');
    expect(await sessions.totalBytes()).toBe(before - part1!.bytes);
  }, 60_000);
});

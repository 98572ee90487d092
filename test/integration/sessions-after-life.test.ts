import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import { sessionKeys } from '../../src/redis/session-keys.js';
import { RedisSessionStore } from '../../src/redis/redis-session-store.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * The bullmq driver on the real Redis: a tagged turn that comes after every key of its session's
 * parts is gone (they live `sessionLifeMs` after a part's first turn; here made to expire at once)
 * opens the session's next part, continuing `max_age`: it never opens part 1 again, which would
 * replace part 1's record and pass for the conversation from its start.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

type SessionRecord = RunRecord & { parts?: number[] };

describe('a tagged turn after its session outlived its keys (bullmq)', () => {
  it('opens the next part, and part 1 keeps its record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-after-life-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const live = await startLiveService(
      'bullmq',
      {
        'export.enabled': false,
        'toolHealth.enabled': false,
        'sessions.idleMs': 200,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
    );
    const redis = live.redis!.commands;
    const session = (part: number) =>
      live.get<SessionRecord>(`sessions/conv-l${part > 1 ? `?part=${part}` : ''}`);
    const first = turn('conv-l', ['lookup_order'], 0);
    await live.send(first);
    await waitFor(async () => (await session(1)).status === 200, 'part 1 scored', 15_000);
    // Its part's keys reach the end of their life.
    const keys = sessionKeys(live.prefix, 'conv-l');
    await redis.pexpire(keys.base, 1);
    await waitFor(async () => (await redis.exists(keys.base)) === 0, 'part 1 keys gone', 5_000);
    const later = turn('conv-l', ['verify_identity', 'issue_refund'], 60_000);
    await live.send(later);
    await waitFor(async () => (await session(2)).status === 200, 'part 2 scored', 15_000);
    expect((await session(2)).body.session).toMatchObject({
      part: 2,
      traceIds: [later.traceId],
      continues: 'max_age',
    });
    expect((await session(2)).body.testCaseId).toBe('refund');
    // Part 1 is as it was: its one turn, not the later one.
    expect((await session(1)).body.session).toMatchObject({
      part: 1,
      traceIds: [first.traceId],
      continues: null,
    });
    // A third turn joins part 2, as any turn of an open part does.
    const third = turn('conv-l', ['issue_refund'], 120_000, {}, null);
    await live.send(third);
    await waitFor(
      async () => (await session(2)).body.session?.traceIds.length === 2,
      'part 2 takes the third turn',
      15_000,
    );
    expect((await session(3)).status).toBe(404);
  }, 60_000);

  it('a turn refused at sessions.maxBytes after its parts are gone is refused as the next part, marked', async () => {
    const redis = redisFor(testPrefix());
    closers.push(redis.cleanup);
    await whenReady(redis.commands, 10_000);
    const bounds = {
      idleMs: 10_000,
      maxTraces: 50,
      maxAgeMs: 60_000,
      maxSessionBytes: 1_000_000,
      maxBytes: 1_000_000,
      lifeMs: 120_000,
      seenMs: 3_600_000,
    };
    const store = new RedisSessionStore(redis.commands, redis.prefix, bounds);
    const tagged = { opens: true, ends: false };
    const first = await store.add('conv-m', traceId(1), childSpans(1, ['root']), 1_000, tagged);
    expect(first).toMatchObject({ outcome: 'added', part: 1 });
    const keys = sessionKeys(redis.prefix, 'conv-m');
    await redis.commands.pexpire(keys.base, 1);
    await waitFor(async () => (await redis.commands.exists(keys.base)) === 0, 'keys gone', 5_000);
    // Nothing fits now: the next tagged turn is refused, as part 2, continuing max_age.
    const full = new RedisSessionStore(redis.commands, redis.prefix, { ...bounds, maxBytes: 1 });
    const refused = await full.add('conv-m', traceId(2), childSpans(2, ['root']), 2_000, tagged);
    expect(refused).toMatchObject({
      outcome: 'refused',
      part: 2,
      refused: { continues: 'max_age', marked: true, again: false },
    });
    // Its session's next turn opens part 3.
    const next = await store.add('conv-m', traceId(3), childSpans(3, ['root']), 3_000, tagged);
    expect(next).toMatchObject({ outcome: 'added', part: 3 });
  });
});

describe('a tagged turn of a session the memory driver forgot', () => {
  it('opens the part after the last one whose record is kept, and part 1 keeps its record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-after-life-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    // maxOpen 1: the let-go record keeps 10 sessions (10 × maxOpen), and 10 more as id hashes.
    const live = await startLiveService(
      'memory',
      {
        'export.enabled': false,
        'toolHealth.enabled': false,
        'sessions.maxOpen': 1,
        'sessions.idleMs': 600_000,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
    );
    const session = (id: string, part: number) =>
      live.get<SessionRecord>(`sessions/${id}${part > 1 ? `?part=${part}` : ''}`);
    const first = turn('conv-f0', ['lookup_order'], 0);
    await live.send(first);
    await waitFor(
      async () =>
        (await live.get<{ sessions: Array<{ sessionId: string }> }>('sessions?state=open')).body
          .sessions[0]?.sessionId === 'conv-f0',
      'conv-f0 held',
      15_000,
    );
    // 21 sessions after it: each lets the one before go, and conv-f0 is forgotten, hash and all.
    for (let i = 1; i <= 21; i++) {
      await live.send(turn(`conv-f${i}`, ['lookup_order'], 0));
      await waitFor(
        async () => (await session(`conv-f${i - 1}`, 1)).status === 200,
        `conv-f${i - 1} scored`,
        15_000,
      );
    }
    const later = turn('conv-f0', ['verify_identity', 'issue_refund'], 60_000, {
      'spanscore.session.end': true,
    });
    await live.send(later);
    await waitFor(async () => (await session('conv-f0', 2)).status === 200, 'part 2', 15_000);
    expect((await session('conv-f0', 2)).body.session).toMatchObject({
      part: 2,
      traceIds: [later.traceId],
      continues: 'evicted',
    });
    expect((await session('conv-f0', 1)).body.session).toMatchObject({
      part: 1,
      traceIds: [first.traceId],
      cut: 'evicted',
    });
  }, 90_000);
});

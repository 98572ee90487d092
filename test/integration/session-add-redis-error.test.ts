import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import { sessionKeys } from '../../src/redis/session-keys.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * The bullmq driver, on the real Redis: a Redis error while a scored trace joins its session is
 * retried, as other Redis failures on the worker path are, not taken for a failure retrying
 * cannot help. Redis is made to refuse the session's script by a key of the wrong type where the
 * session's hash goes (a WRONGTYPE reply, a raw ioredis error), then the key is removed.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('a Redis error while a trace joins its session (bullmq)', () => {
  it('retries the trace job, and the turn is scored with its session once Redis takes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-session-add-error-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const sessionKey = (prefix: string) => sessionKeys(prefix, 'conv-e').base;
    const live = await startLiveService(
      'bullmq',
      {
        'export.enabled': false,
        'toolHealth.enabled': false,
        'worker.attempts': 5,
        'worker.backoffMs': 100,
        'sessions.idleMs': 200,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
    );
    const redis = live.redis!.commands;
    await redis.set(sessionKey(live.prefix), 'not a hash');
    const first = turn('conv-e', ['lookup_order'], 0);
    await live.send(first);
    const failedAttempts = () =>
      live.lines.filter(l => l.includes(first.traceId) && /attempt \d+ failed/.test(l));
    await waitFor(() => failedAttempts().length >= 1, 'an attempt failed on WRONGTYPE', 15_000);
    expect(failedAttempts()[0]).toMatch(/WRONGTYPE/);
    await redis.del(sessionKey(live.prefix));
    // Retried: the turn joins its session, which is scored with it.
    await waitFor(
      async () => (await live.get('sessions/conv-e')).status === 200,
      'the session scored',
      15_000,
    );
    const session = (
      await live.get<RunRecord & { session: { traceIds: string[] } }>('sessions/conv-e')
    ).body;
    expect(session.session.traceIds).toEqual([first.traceId]);
    const record = (await live.get<RunRecord>(`traces/${first.traceId}`)).body;
    expect(record.state).not.toBe('failed');
    expect(record.reason).toMatch(/scored with its session/);
  }, 60_000);
});

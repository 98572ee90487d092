import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import type { ResultSink } from '../../src/score/result-sink.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * A session part whose pass fails every attempt of its job, through a live bullmq service on the
 * real Redis: once the last attempt failed, its run record ends `failed` with why (it is not left
 * saying `scored` by a pass that never ended), its turns stay held, and a later turn scores it
 * again.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('a session pass that fails its last attempt (bullmq driver)', () => {
  it("ends the part's record failed with why; a later turn scores it again with both turns", async () => {
    let failing = true;
    const sink = {
      name: 'downstream',
      passes: 0,
      write: (run: Parameters<ResultSink['write']>[0]) => {
        if (run.session?.id !== 'conv-b') return;
        sink.passes++;
        if (failing) throw new SpanscoreError('SS_REDIS_FAILED', 'downstream store down');
      },
    };
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-failed-bullmq-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const live = await startLiveService(
      'bullmq',
      {
        'export.enabled': false,
        'toolHealth.enabled': false,
        'sessions.idleMs': 300,
        'worker.attempts': 2,
        'worker.backoffMs': 10,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
      undefined,
      { sinks: [sink] },
    );
    const session = () => live.get<RunRecord>('sessions/conv-b');
    const first = turn('conv-b', ['lookup_order'], 0);
    await live.send(first);
    await waitFor(async () => (await session()).body.state === 'failed', 'part 1 failed', 20_000);
    expect(sink.passes).toBe(2);
    const gone =
      'its turns are kept until its keys expire (sessions.maxAgeMs + sessions.idleMs and a margin after its first turn): only a later turn scores it again';
    expect((await session()).body.reason).toBe(
      `scoring failed after its retries: downstream store down; part 1 of session "conv-b" (1 turn): ${gone}`,
    );
    expect((await session()).body.session).toMatchObject({ part: 1, traceIds: [first.traceId] });
    expect(live.lines.filter(l => l.includes('"conv-b"'))).toEqual([
      `spanscore: session "conv-b" part 1 failed after its retries: downstream store down; ${gone}; its record (session:conv-b) says so`,
    ]);
    // Its turns are held: a later turn scores the part again, with both.
    failing = false;
    const second = turn('conv-b', ['verify_identity', 'issue_refund'], 1);
    await live.send(second);
    await waitFor(async () => (await session()).body.state === 'scored', 'part 1 scored', 20_000);
    expect((await session()).body.session?.traceIds).toEqual([first.traceId, second.traceId]);
  }, 60_000);
});

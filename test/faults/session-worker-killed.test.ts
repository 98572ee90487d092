/**
 * A session survives its worker: real processes (`serve --no-worker`, then workers) on a real
 * Redis. The first turn of a conversation is scored and joins its session in Redis; its worker is
 * killed with SIGKILL while the session waits to be scored (its job delayed in the queue); the
 * second turn arrives with no worker up; a new worker scores it, adds it to the session, and the
 * session is scored with both turns, once, passing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { otlpRequest } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { resultRows } from '../helpers/result-rows.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn } from '../helpers/session-turn.js';

const { cleanups, run, backend } = useProcessFixtures();

describe('a worker killed mid-session (bullmq driver)', () => {
  it('loses none of the session: the next worker scores it with every turn', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(() => redis.cleanup());
    const otlp = await backend();
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-session-kill-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const results = join(dir, 'results.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url, {
      SPANSCORE_RESULTS_FILE: results,
      SPANSCORE_SESSION_IDLE_MS: '3000',
      SPANSCORE_TOOL_HEALTH: 'false',
    });
    const serve = run(['serve', '--no-worker', '--port', '0', '--host', '127.0.0.1'], env);
    const url = (await serve.waitForLine(/listening on (\S+) \(bullmq driver\)/))[1]!;
    const send = async (turn: ReturnType<typeof sessionTurn>): Promise<void> => {
      const response = await fetch(`${new URL(url).origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(otlpRequest(turn.spans)),
      });
      expect(response.status).toBe(200);
    };
    const sessionKey = `${prefix}:session:{conv-k}`;

    const first = sessionTurn('conv-k', ['lookup_order'], 0);
    const second = sessionTurn('conv-k', ['verify_identity', 'issue_refund'], 60_000);
    const doomed = run(['worker', '--suite', join(dir, 'support.yaml')], env);
    await doomed.waitForLine(/taking traces from Redis/);
    await send(first);
    await waitFor(
      async () => (await redis.commands.hlen(sessionKey)) === 2,
      'the first turn in its session in Redis (its trace and when it began)',
      20_000,
    );
    doomed.child.kill('SIGKILL');
    await doomed.exited;

    await send(second);
    expect(resultRows(results)).toEqual([]);
    const next = run(['worker', '--suite', join(dir, 'support.yaml')], env);
    await next.waitForLine(/taking traces from Redis/);
    await waitFor(
      () => resultRows(results).length === 1,
      'the session scored by the next worker',
      30_000,
    );
    const [row] = resultRows(results);
    expect(row).toMatchObject({
      testCaseId: 'refund',
      scorer: 'tool_trajectory',
      label: 'pass',
      traceId: second.traceId,
      session: {
        id: 'conv-k',
        turns: [
          { traceId: first.traceId, testCaseId: 'refund', calls: 1 },
          { traceId: second.traceId, testCaseId: 'refund', calls: 2 },
        ],
      },
    });
    await waitFor(() => otlp.spans.length === 1, 'the session’s evaluation span exported');
    expect(otlp.spans[0]!.attributes['spanscore.session.id']).toBe('conv-k');
    // Scored once: nothing more comes after the idle time has passed again.
    await new Promise(r => setTimeout(r, 4000));
    expect(resultRows(results)).toHaveLength(1);
  }, 90_000);
});

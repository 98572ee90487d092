/**
 * A session survives its worker dying while it scores it: real processes (`serve --no-worker`,
 * then workers) on a real Redis, and a real LLM judge call (the `rubric` scorer against a local
 * OpenAI-compatible server) that makes the session's pass slow. Both turns of a conversation are
 * scored and join their session in Redis; the session's pass begins and asks the judge, which
 * does not answer; the worker is killed with SIGKILL in the middle of that pass. A new worker
 * takes the stalled job over, and the session is scored once, with both turns.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type ScriptedReply,
} from '../helpers/openai-compatible-server.js';
import { bullmqCliEnv, useProcessFixtures } from '../helpers/process-fixtures.js';
import { otlpRequest } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { resultRows } from '../helpers/result-rows.js';
import { sessionTurn } from '../helpers/session-turn.js';

const { cleanups, run, backend } = useProcessFixtures();

/** The session test case of `session-turn.ts`, also judged by a rubric (an LLM call per pass). */
const SUITE = `
name: support
scorers:
  - tool_trajectory
  - { name: rubric, criteria: The customer is verified before any refund., min: 1, max: 5 }
testCases:
  - id: refund
    session: true
    turns:
      - expectedCalls: [lookup_order]
      - expectedCalls: [verify_identity, issue_refund]
    before: [verify_identity, issue_refund]
`;

const verdict = judgeAnswer({ score: 5, explanation: 'Verified before the refund.' });
/** The first judge call (the doomed worker's) hangs far longer than the test; the next answers. */
const SCRIPT: ScriptedReply[] = [
  { status: 200, body: JSON.stringify(verdict.completion), delayMs: 600_000 },
  verdict,
];

describe('a worker killed while it scores a session (bullmq driver)', () => {
  it('loses none of the session: the next worker scores it once, with every turn', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(() => redis.cleanup());
    const judge = await startOpenAiCompatibleServer(SCRIPT);
    cleanups.push(() => judge.close());
    const otlp = await backend();
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-session-kill-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const results = join(dir, 'results.jsonl');
    const env = bullmqCliEnv(prefix, otlp.url, {
      SPANSCORE_RESULTS_FILE: results,
      SPANSCORE_SESSION_IDLE_MS: '500',
      SPANSCORE_TOOL_HEALTH: 'false',
      // A killed worker's job is taken over within about 3 s rather than a minute.
      SPANSCORE_LOCK_DURATION_MS: '2000',
      SPANSCORE_STALLED_INTERVAL_MS: '1000',
      OPENAI_BASE_URL: judge.baseURL,
      OPENAI_API_KEY: 'test-key',
      SPANSCORE_JUDGE_MODEL: 'judge-model-2026',
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
    const sessionRows = () => resultRows(results).filter(r => r.session?.id === 'conv-k');

    const first = sessionTurn('conv-k', ['lookup_order'], 0);
    const second = sessionTurn('conv-k', ['verify_identity', 'issue_refund'], 60_000);
    const doomed = run(['worker', '--suite', join(dir, 'support.yaml')], env);
    await doomed.waitForLine(/taking traces from Redis/);
    await send(first);
    await send(second);
    // The session's pass is under way: it has asked the judge, which holds its answer.
    await waitFor(() => judge.requests.length === 1, 'the session pass asking the judge', 20_000);
    // It is the session's pass (the turns are not judged alone): the calls of both turns.
    for (const call of ['lookup_order', 'verify_identity', 'issue_refund'])
      expect(JSON.stringify(judge.requests[0])).toContain(call);
    expect(await redis.commands.hlen(`${prefix}:session:{conv-k}`)).toBeGreaterThan(2);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    expect(sessionRows()).toEqual([]);

    const next = run(['worker', '--suite', join(dir, 'support.yaml')], env);
    await next.waitForLine(/taking traces from Redis/);
    await waitFor(
      () => sessionRows().length === 2,
      'the session scored by the next worker (two scorers)',
      30_000,
    );
    for (const row of sessionRows())
      expect(row).toMatchObject({
        testCaseId: 'refund',
        traceId: second.traceId,
        session: {
          id: 'conv-k',
          turns: [
            { traceId: first.traceId, testCaseId: 'refund', calls: 1 },
            { traceId: second.traceId, testCaseId: 'refund', calls: 2 },
          ],
        },
      });
    expect(
      sessionRows()
        .map(r => [r.scorer, r.label])
        .sort(),
    ).toEqual([
      ['rubric', 'pass'],
      ['tool_trajectory', 'pass'],
    ]);
    expect(judge.requests).toHaveLength(2);
    // Scored once: nothing more comes after the idle time and a stall check have passed again.
    await new Promise(r => setTimeout(r, 3000));
    expect(sessionRows()).toHaveLength(2);
    expect(judge.requests).toHaveLength(2);
  }, 90_000);
});

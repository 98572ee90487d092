import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { JUDGE_QUEUE } from '../../src/queue/judge-queue.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { judgeAnswer, type ScriptedReply } from '../helpers/openai-compatible-server.js';
import { goodVerdict, harness, serverError } from '../helpers/llm-worker-harness.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('LLM scorers in the BullMQ worker, on their own judge queue', () => {
  it('a 429 pauses the judge queue for its Retry-After without using an attempt; deterministic spans do not wait', async () => {
    const h = await harness(closers, [
      { status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'retry-after': '2' } },
      goodVerdict,
    ]);
    expect(await h.send(1)).toBe(200);
    await waitFor(() => h.spansFor(1, 'tool_call_appropriateness').length === 1, 'the LLM span');
    const [accuracy] = h.spansFor(1, 'tool_call_accuracy');
    const [appropriateness] = h.spansFor(1, 'tool_call_appropriateness');
    expect(accuracy!.attributes['gen_ai.evaluation.score.value']).toBe(1);
    // The deterministic span left before the judge was even asked again.
    expect(accuracy!.at).toBeLessThanOrEqual(h.judgeServer.times[1]!);
    expect(h.judgeServer.times).toHaveLength(2);
    expect(h.judgeServer.times[1]! - h.judgeServer.times[0]!).toBeGreaterThanOrEqual(1900);
    expect(appropriateness!.attributes).toMatchObject({
      'gen_ai.evaluation.score.value': 1,
      'gen_ai.evaluation.score.label': 'pass',
      'gen_ai.request.model': 'judge-model-2026',
      'gen_ai.usage.input_tokens': 400,
      'gen_ai.usage.output_tokens': 100,
      'spanscore.judge.cached': false,
    });
    const metrics = await (await fetch(h.service.url!.replace('/v1/traces', '/metrics'))).text();
    expect(metrics).toContain(
      'spanscore_judge_calls_total{model="judge-model",outcome="SS_JUDGE_RATE_LIMITED"} 1',
    );
    expect(metrics).toContain(
      'spanscore_judge_calls_total{model="judge-model",outcome="answered"} 1',
    );
    expect(metrics).toContain(
      'spanscore_judge_tokens_total{model="judge-model",direction="input"} 400',
    );
    // One attempt, the one that succeeded (BullMQ counts finished attempts): the 429 used none.
    const queue = new Queue(JUDGE_QUEUE, { connection: { url: REDIS_URL }, prefix: h.prefix });
    closers.push(() => queue.close());
    // The span is exported inside the job, just before BullMQ marks it completed.
    const jobId = `${traceId(1)}-llm-2`;
    await waitFor(
      async () => (await queue.getJobState(jobId)) === 'completed',
      'the judge job to complete',
    );
    expect((await queue.getJob(jobId))?.attemptsMade).toBe(1);
  });

  it('starts at most rateLimit.max judge jobs per rateLimit.durationMs', async () => {
    const h = await harness(closers, [goodVerdict], { rateLimit: { max: 1, durationMs: 700 } });
    for (const [t, city] of [
      [10, 'Paris'],
      [11, 'Lyon'],
      [12, 'Nice'],
    ] as const)
      expect(await h.send(t, city)).toBe(200);
    await waitFor(
      () => [10, 11, 12].every(t => h.spansFor(t, 'tool_call_appropriateness').length === 1),
      'three LLM spans',
    );
    expect(h.judgeServer.times).toHaveLength(3);
    // The limiter bounds when BullMQ starts the jobs (`processedOn`); each job's request to the
    // judge follows its start after the trace is read and normalized, which a loaded machine can
    // stretch by hundreds of ms, so the requests' own spacing is no measure of it.
    const queue = new Queue(JUDGE_QUEUE, { connection: { url: REDIS_URL }, prefix: h.prefix });
    closers.push(() => queue.close());
    let started: number[] = [];
    await waitFor(async () => {
      const done = await queue.getJobs(['completed']);
      started = done.map(j => j.processedOn!).sort((a, b) => a - b);
      return started.length === 3;
    }, 'the three judge jobs completed');
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(650);
    expect(started[2]! - started[1]!).toBeGreaterThanOrEqual(650);
  });

  it('retries a 500 with the queue backoff; on the last attempt the result is failed with the reason', async () => {
    const recovers = await harness(closers, [serverError, goodVerdict], { attempts: 3 });
    await recovers.send(2);
    await waitFor(
      () => recovers.spansFor(2, 'tool_call_appropriateness').length === 1,
      'the LLM span after a retry',
    );
    expect(recovers.judgeServer.requests).toHaveLength(2);
    expect(
      recovers.spansFor(2, 'tool_call_appropriateness')[0]!.attributes[
        'gen_ai.evaluation.score.value'
      ],
    ).toBe(1);

    const down = await harness(closers, [serverError], { attempts: 2 });
    await down.send(3);
    await waitFor(
      () => down.spansFor(3, 'tool_call_appropriateness').length === 1,
      'the failed LLM span',
    );
    expect(down.judgeServer.requests).toHaveLength(2); // one per attempt: the client does not retry
    expect(down.spansFor(3, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'spanscore.evaluation.status': 'failed',
      'error.type': 'SS_JUDGE_UNAVAILABLE',
    });
    expect(down.spansFor(3, 'tool_call_accuracy')[0]!.attributes).toMatchObject({
      'gen_ai.evaluation.score.value': 1,
    });
  });

  it('the memory driver retries a failing judge in its judge pass only: one call per attempt', async () => {
    const down = await harness(
      closers,
      [serverError],
      { attempts: 3 },
      undefined,
      undefined,
      'memory',
    );
    await down.send(4);
    await waitFor(
      () => down.spansFor(4, 'tool_call_appropriateness').length === 1,
      'the failed LLM span',
    );
    // judge.attempts calls in all: the openai client's own retries (judge.maxRetries) are off,
    // or each attempt would be 1 + 3 calls.
    expect(down.judgeServer.requests).toHaveLength(3);
    expect(down.spansFor(4, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'spanscore.evaluation.status': 'failed',
      'error.type': 'SS_JUDGE_UNAVAILABLE',
    });
  });

  it('the memory driver holds at most judge.maxQueuedTraces traces for a slow judge: one past them is not judged, and its run record says why', async () => {
    const slow: ScriptedReply = {
      status: 200,
      body: JSON.stringify((goodVerdict as { completion: unknown }).completion),
      delayMs: 2000,
    };
    const h = await harness(
      closers,
      [slow],
      { concurrency: 1, maxQueuedTraces: 2, timeoutMs: 10_000 },
      undefined,
      undefined,
      'memory',
    );
    for (const t of [40, 41, 42, 43]) {
      expect(await h.send(t, `city ${t}`)).toBe(200);
      await waitFor(() => h.spansFor(t, 'tool_call_accuracy').length === 1, `trace ${t} scored`);
    }
    const record = async (t: number) =>
      (await (
        await fetch(h.service.url!.replace('/v1/traces', `/api/v1/traces/${traceId(t)}`))
      ).json()) as { state: string; reason?: string };
    for (const t of [42, 43])
      expect(await record(t)).toMatchObject({
        state: 'failed',
        reason:
          'the judge pass failed after its retries: not judged: 2 traces already wait for the judge or are being judged (judge.maxQueuedTraces)',
      });
    await waitFor(() => h.spansFor(41, 'tool_call_appropriateness').length === 1, 'the second');
    // Two traces judged, one call each; the two past the bound were never sent to the judge.
    expect(h.judgeServer.requests).toHaveLength(2);
    expect(h.spansFor(40, 'tool_call_appropriateness')).toHaveLength(1);
    expect(h.spansFor(42, 'tool_call_appropriateness')).toHaveLength(0);
  });

  it('a non-JSON body is retried then failed; an answer off the schema fails after one repair, not retried; a hanging judge times out per attempt, then failed', async () => {
    const garbage = await harness(closers, [{ status: 200, body: 'not json at all' }]);
    await garbage.send(20);
    await waitFor(
      () => garbage.spansFor(20, 'tool_call_appropriateness').length === 1,
      'the failed span',
    );
    expect(garbage.spansFor(20, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'spanscore.evaluation.status': 'failed',
    });
    // A 200 whose body is not JSON: no completion to repair, so the endpoint is treated as
    // failing (retried by the queue on every attempt), then the result is failed.
    expect(garbage.spansFor(20, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'error.type': 'SS_JUDGE_UNAVAILABLE',
      'gen_ai.evaluation.explanation': expect.stringContaining(
        'the judge endpoint answered with a body that is not JSON after retries',
      ),
    });
    expect(garbage.judgeServer.requests).toHaveLength(5); // judge.attempts, one call each

    const nonsense = await harness(closers, [
      judgeAnswer({ verdict: 'yes, probably' }),
      judgeAnswer({ still: 'wrong' }),
    ]);
    await nonsense.send(21);
    await waitFor(
      () => nonsense.spansFor(21, 'tool_call_appropriateness').length === 1,
      'the failed span',
    );
    expect(nonsense.spansFor(21, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'spanscore.evaluation.status': 'failed',
      'error.type': 'SS_JUDGE_INVALID_OUTPUT',
    });
    expect(nonsense.judgeServer.requests).toHaveLength(2); // the answer and one repair, no retry

    const hanging = await harness(closers, [{ status: 200, body: '{}', delayMs: 5000 }], {
      timeoutMs: 300,
      attempts: 2,
    });
    await hanging.send(22);
    await waitFor(
      () => hanging.spansFor(22, 'tool_call_accuracy').length === 1,
      'the deterministic span, not held up by the judge',
    );
    expect(hanging.spansFor(22, 'tool_call_appropriateness')).toHaveLength(0);
    await waitFor(
      () => hanging.spansFor(22, 'tool_call_appropriateness').length === 1,
      'the failed LLM span after two timed-out attempts',
    );
    expect(hanging.spansFor(22, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'spanscore.evaluation.status': 'failed',
      'error.type': 'SS_JUDGE_UNAVAILABLE',
    });
    expect(hanging.judgeServer.requests).toHaveLength(2);
  });

  it('keeps judge answers in Redis: a new worker scoring the same trace content asks nothing', async () => {
    const prefix = testPrefix();
    const first = await harness(closers, [goodVerdict], {}, prefix);
    await first.send(4);
    await waitFor(() => first.spansFor(4, 'tool_call_appropriateness').length === 1, 'scored');
    await first.service.close();
    const second = await harness(closers, [], {}, prefix, first.judgeServer);
    await second.send(5); // another trace id, same content: the same prompt
    await waitFor(() => second.spansFor(5, 'tool_call_appropriateness').length === 1, 'rescored');
    expect(first.judgeServer.requests).toHaveLength(1);
    expect(second.spansFor(5, 'tool_call_appropriateness')[0]!.attributes).toMatchObject({
      'gen_ai.evaluation.score.value': 1,
      'spanscore.judge.cached': true,
      'gen_ai.usage.input_tokens': 0,
    });
  });

  it('prices every answer, keeps the day total in Redis, and skips LLM scorers past the daily budget', async () => {
    const h = await harness(closers, [goodVerdict, { ...goodVerdict }], {
      // 400 input tokens at $500/M + 100 output tokens at $1000/M = $0.30 per call.
      prices: { 'judge-model': { inputPerMillionTokens: 500, outputPerMillionTokens: 1000 } },
      dailyBudgetUsd: 0.25,
    });
    await h.send(6);
    await waitFor(() => h.spansFor(6, 'tool_call_appropriateness').length === 1, 'first trace');
    expect(
      h.spansFor(6, 'tool_call_appropriateness')[0]!.attributes['spanscore.judge.cost_usd'],
    ).toBeCloseTo(0.3, 10);
    const day = new Date().toISOString().slice(0, 10);
    const redis = redisFor(h.prefix);
    closers.push(redis.cleanup);
    await whenReady(redis.commands);
    expect(Number(await redis.commands.get(`${h.prefix}:judge-spend:${day}`))).toBeCloseTo(0.3, 10);

    // Other arguments (so not a cache hit) after the budget is spent: skipped, not asked.
    await h.send(7, 'Lyon');
    await waitFor(() => h.spansFor(7, 'tool_call_appropriateness').length === 1, 'second trace');
    expect(h.judgeServer.requests).toHaveLength(1);
    const skipped = h.spansFor(7, 'tool_call_appropriateness')[0]!;
    expect(skipped.attributes['spanscore.evaluation.status']).toBe('skipped');
    expect(skipped.attributes['gen_ai.evaluation.explanation']).toMatch(
      /daily budget of \$0\.25 is spent \(\$0\.3000 on \d{4}-\d\d-\d\d UTC\)/,
    );
    // Deterministic scorers are never budgeted.
    expect(
      h.spansFor(7, 'tool_call_accuracy')[0]!.attributes['gen_ai.evaluation.score.value'],
    ).toBe(1);
  });
});

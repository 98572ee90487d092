import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_RATE_LIMITED_WAITS } from '../../src/queue/classify-failure.js';
import { JUDGE_QUEUE } from '../../src/queue/judge-queue.js';
import { harness } from '../helpers/llm-worker-harness.js';
import type { ScriptedReply } from '../helpers/openai-compatible-server.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { REDIS_URL, waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const alwaysRateLimited: ScriptedReply = {
  status: 429,
  body: '{"error":{"message":"slow down"}}',
  headers: { 'retry-after': '0' },
};

describe('a judge endpoint answering 429 forever', () => {
  it.each(['bullmq', 'memory'] as const)(
    '%s driver: the pass asks at most MAX_RATE_LIMITED_WAITS + 1 times, then the result is failed saying the endpoint kept answering 429',
    async driver => {
      const h = await harness(closers, [alwaysRateLimited], {}, undefined, undefined, driver);
      expect(await h.send(60)).toBe(200);
      await waitFor(
        () => h.spansFor(60, 'tool_call_appropriateness').length === 1,
        'the failed LLM span',
      );
      const [span] = h.spansFor(60, 'tool_call_appropriateness');
      expect(span!.attributes).toMatchObject({
        'spanscore.evaluation.status': 'failed',
        'error.type': 'SS_JUDGE_RATE_LIMITED',
        'gen_ai.evaluation.explanation': expect.stringContaining(
          `the judge endpoint kept answering 429 (rate limited): not asked again after ${MAX_RATE_LIMITED_WAITS} answers of 429`,
        ),
      });
      // One LLM call: each wait was one request, and the try past them one more.
      expect(h.judgeServer.requests).toHaveLength(MAX_RATE_LIMITED_WAITS + 1);
      if (driver === 'bullmq') {
        const queue = new Queue(JUDGE_QUEUE, { connection: { url: REDIS_URL }, prefix: h.prefix });
        closers.push(() => queue.close());
        const jobId = `${traceId(60)}-llm-2`;
        await waitFor(
          async () => (await queue.getJobState(jobId)) === 'completed',
          'the judge job to complete',
        );
        expect((await queue.getJob(jobId))?.data.rateLimitedWaits).toBe(MAX_RATE_LIMITED_WAITS);
      }
      expect(h.judgeServer.requests).toHaveLength(MAX_RATE_LIMITED_WAITS + 1);
    },
  );
});

import { afterEach, describe, expect, it } from 'vitest';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import { createBullmqTraceSink } from '../../src/queue/bullmq-trace-assembler.js';
import {
  bullmqSinkLimits,
  bullmqTraceOptions,
  bullmqWorkerLimits,
} from '../../src/queue/bullmq-queue-driver.js';
import { createScoreTraceWorker } from '../../src/queue/score-trace.processor.js';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import { childSpans } from '../helpers/child-spans.js';
import { CONFIG_DEFAULTS } from '../helpers/config-defaults.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';

/**
 * A rescore (late spans, `assembly.rescoreLateSpans`) is counted against the trace's judge passes
 * (`MAX_JUDGE_PASSES_PER_TRACE`) in its buffer hash. The count was made on each attempt: a rescore
 * whose first attempt failed (an `upstream` error: Redis, a session add) and was retried counted
 * twice, and its retry was told it was rescore 2, so the trace ran out of judge passes early.
 */

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('bullmq driver: a retried rescore', () => {
  it('is counted once against the judge passes, its retry told the same rescore number', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    cleanups.push(redis.cleanup);
    const shared = {
      ...bullmqTraceOptions(CONFIG_DEFAULTS),
      prefix,
      policy: { settleMs: 100, maxWaitMs: 1500 },
      rescoreLateSpans: true,
      backoffMs: 50,
    };
    const sink = createBullmqTraceSink({
      ...shared,
      redis: redis.commands,
      queueConnection: redis.bullmq(),
      ...bullmqSinkLimits(CONFIG_DEFAULTS),
    });
    cleanups.push(() => sink.close());
    // Each attempt: the spans it read and the rescore number it was given.
    const attempts: Array<{ spans: number; rescore: number | undefined }> = [];
    let failures = 0;
    const worker = createScoreTraceWorker({
      ...shared,
      redis: redis.commands,
      workerConnection: redis.bullmq(),
      ...bullmqWorkerLimits(CONFIG_DEFAULTS),
      process: (_id, spans, { rescore }) => {
        attempts.push({ spans: spans.length, rescore });
        if (failures > 0) {
          failures--;
          return Promise.reject(new SpanscoreError('SS_REDIS_FAILED', 'a session add failed'));
        }
        return Promise.resolve();
      },
    });
    cleanups.push(() => worker.close());

    await sink.accept(childSpans(31, ['root', 'a']));
    await waitFor(() => attempts.length === 1, 'the first scoring');
    failures = 1;
    await sink.accept(childSpans(31, ['late']));
    await waitFor(() => attempts.length === 3, 'the rescore, failed once and retried');
    expect(failures).toBe(0);
    expect(attempts).toEqual([
      { spans: 2, rescore: undefined },
      { spans: 3, rescore: 1 },
      { spans: 3, rescore: 1 },
    ]);
    const key = bufferKeyOf(prefix, traceId(31));
    expect(await redis.commands.hget(key, 'rs')).toBe('1');
    // A later rescore (more spans) is the second.
    await sink.accept(childSpans(31, ['later']));
    await waitFor(() => attempts.length === 4, 'the second rescore');
    expect(attempts[3]).toEqual({ spans: 4, rescore: 2 });
    expect(await redis.commands.hget(key, 'rs')).toBe('2');
  });
});

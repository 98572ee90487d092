import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config-schema.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { EvaluationExporter } from '../emit/otlp-evaluation-exporter.js';
import { createOtlpHttpReceiver } from '../ingest/otlp-http-receiver.js';
import type { SpanSink } from '../ingest/span-sink.js';
import { createBullmqTraceSink } from '../queue/bullmq-trace-assembler.js';
import { createMemoryTraceAssembler } from '../queue/memory-trace-assembler.js';
import type { TraceResult } from '../queue/process-trace.js';
import { createRedisConnection } from '../queue/redis-connection.js';
import { createScoreTraceWorker } from '../queue/score-trace.processor.js';
import { createJudgeQueue } from '../queue/judge-queue.js';
import { createJudgeWorker } from '../queue/judge.processor.js';
import type { ScoringRuntime } from './scoring-runtime.js';
import { createServiceMetrics } from './service-metrics.js';

/** What runs: the receiver with workers (`serve`), the receiver alone, or workers alone. */
export interface ServiceRole {
  receiver: boolean;
  workers: boolean;
}

/** A running service. */
export interface Service {
  /** The receiver's `/v1/traces` URL, when it runs. */
  url: string | undefined;
  driver: 'memory' | 'bullmq';
  /** Stops taking traffic, finishes or hands back work, flushes the exporter, closes Redis. */
  close(): Promise<void>;
}

/** Injectable parts, for the demo and tests. */
export interface ServiceHooks {
  log?: (line: string) => void;
  onResult?: (result: TraceResult) => void;
  exporter?: EvaluationExporter;
}

/**
 * Starts spanscore as a service from a validated config: loads the suites, the evaluation-span
 * exporter, the queue driver (`memory` in this process, or `bullmq` on Redis, where receivers and
 * workers can run in separate processes on any hosts), the OTLP/HTTP receiver and the workers.
 * `close()` shuts down in order: the receiver stops accepting and finishes its requests, workers
 * finish their traces (the memory driver scores what it buffered; BullMQ hands unfinished jobs
 * back to the queue), the exporter flushes, Redis closes; all within `shutdownDeadlineMs`.
 */
export async function startService(
  config: Readonly<Config>,
  role: ServiceRole,
  hooks: ServiceHooks = {},
): Promise<Service> {
  const log = hooks.log ?? (line => process.stderr.write(`${line}\n`));
  const driver = config.queue.driver ?? 'memory';
  const redisConnections: Redis[] = [];
  const redis = (role: 'bullmq' | 'commands'): Redis => {
    const connection = createRedisConnection(config.queue.redisUrl!, role);
    connection.on('error', error => log(`spanscore: redis: ${error.message}`));
    redisConnections.push(connection);
    return connection;
  };
  const commands = driver === 'bullmq' ? redis('commands') : undefined;

  let jobsByState: (() => Promise<Record<string, number>>) | undefined;
  const metrics = createServiceMetrics(() => jobsByState?.() ?? Promise.resolve({}));
  // Only processes that score load the suites, the judge, the exporter and the scorers: a
  // receiver-only process (serve --no-worker) stays small.
  const scoring = role.workers
    ? await (
        await import('./scoring-runtime.js')
      ).createScoringRuntime(config, { metrics, log, hooks, ...(commands && { commands }) })
    : undefined;
  if (!scoring && (config.suites.length > 0 || config.rules.length > 0))
    log(
      'spanscore: receiver only: suites and rules are loaded and scored by the workers (spanscore worker), not here',
    );
  const scoreTrace: ScoringRuntime['scoreTrace'] = (...args) => {
    if (!scoring) throw new Error('unreachable: only a process with workers scores traces');
    return scoring.scoreTrace(...args);
  };
  const onLateSpans = (traceId: string, count: number): void => {
    metrics.lateSpans.inc(count);
    log(
      `spanscore: ${count} late span(s) for trace ${traceId}${config.assembly.rescoreLateSpans ? ': rescoring' : ''}`,
    );
  };
  const policy = { settleMs: config.assembly.settleMs, maxWaitMs: config.assembly.maxWaitMs };
  // A BullMQ job attempt failed: logged each time, counted once its last attempt has failed.
  const onJobFailed =
    (what: string) =>
    (
      job:
        | { data: { traceId: string }; attemptsMade: number; opts: { attempts?: number } }
        | undefined,
      error: Error,
    ): void => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) metrics.traceFailures.inc();
      log(
        `spanscore: ${what} ${job?.data.traceId ?? '?'} attempt ${job?.attemptsMade ?? '?'} failed: ${error.message}`,
      );
    };

  const closers: Array<() => Promise<unknown>> = [];
  let sink: SpanSink | undefined;
  let ready: (() => Promise<boolean>) | undefined;
  if (driver === 'memory') {
    if (!role.receiver || !role.workers) {
      throw new SpanscoreError(
        'SS_USAGE',
        'the memory driver runs the receiver and the workers in one process: drop --no-worker, or set REDIS_URL for the bullmq driver',
      );
    }
    log(
      'spanscore: memory driver: traces are buffered in this process and nothing survives a restart (set REDIS_URL for the bullmq driver)',
    );
    const assembler = createMemoryTraceAssembler({
      policy,
      process: scoreTrace,
      concurrency: config.worker.concurrency,
      maxAttempts: config.worker.attempts,
      backoffMs: config.worker.backoffMs,
      maxBufferedSpans: config.assembly.maxBufferedSpans,
      rescoreLateSpans: config.assembly.rescoreLateSpans,
      onLateSpans,
      onFailed: (traceId, error) => {
        metrics.traceFailures.inc();
        log(`spanscore: could not score trace ${traceId}: ${(error as Error).message}`);
      },
    });
    sink = assembler;
    closers.push(async () => {
      const { unfinished } = await assembler.close(config.shutdownDeadlineMs);
      if (unfinished) log(`spanscore: ${unfinished} trace(s) unfinished at the shutdown deadline`);
    });
  } else {
    const shared = {
      prefix: config.queue.prefix,
      policy,
      rescoreLateSpans: config.assembly.rescoreLateSpans,
    };
    if (!commands) throw new Error('unreachable: the bullmq driver has a Redis connection');
    if (role.receiver) {
      const bullSink = createBullmqTraceSink({
        ...shared,
        redis: commands,
        queueConnection: redis('bullmq'),
        maxQueuedTraces: config.assembly.maxQueuedTraces,
        attempts: config.worker.attempts,
        backoffMs: config.worker.backoffMs,
        onError: e => log(`spanscore: queue: ${e.message}`),
      });
      sink = bullSink;
      jobsByState = () =>
        bullSink.queue.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
      ready = async () => (await commands.ping()) === 'PONG';
      closers.push(() => bullSink.close());
    }
    if (role.workers) {
      // LLM scorers run on their own queue, so a slow or rate-limited judge never holds up the
      // deterministic scorers of other traces.
      const judgeQueue = scoring?.usesJudge
        ? createJudgeQueue({
            connection: redis('bullmq'),
            prefix: config.queue.prefix,
            attempts: config.judge.attempts,
            backoffMs: config.judge.backoffMs,
          })
        : undefined;
      const worker = createScoreTraceWorker({
        ...shared,
        redis: commands,
        workerConnection: redis('bullmq'),
        process: async (traceId, spans) => {
          const results = await scoreTrace(traceId, spans, judgeQueue ? 'deterministic' : 'all');
          if (judgeQueue && results.some(r => r.deferred.length > 0))
            await judgeQueue.enqueue(traceId, spans);
        },
        concurrency: config.worker.concurrency,
        lockDurationMs: config.worker.lockDurationMs,
        stalledIntervalMs: config.worker.stalledIntervalMs,
        onLateSpans,
        onError: e => log(`spanscore: worker: ${e.message}`),
      });
      worker.on('failed', onJobFailed('trace'));
      // BullMQ's close waits for active jobs; jobs still delayed stay in Redis for any worker.
      closers.unshift(() => worker.close());
      if (judgeQueue) {
        const judgeWorker = createJudgeWorker({
          connection: redis('bullmq'),
          prefix: config.queue.prefix,
          process: (traceId, spans, propagate) => scoreTrace(traceId, spans, 'llm', propagate),
          rateLimit: config.judge.rateLimit,
          concurrency: config.judge.concurrency,
          lockDurationMs: config.worker.lockDurationMs,
          stalledIntervalMs: config.worker.stalledIntervalMs,
          onError: e => log(`spanscore: judge worker: ${e.message}`),
        });
        judgeWorker.on('failed', onJobFailed('LLM scoring of trace'));
        closers.unshift(() => judgeWorker.close());
        closers.push(() => judgeQueue.close());
      }
    }
  }

  let url: string | undefined;
  let app: ReturnType<typeof createOtlpHttpReceiver> | undefined;
  if (role.receiver && sink) {
    app = createOtlpHttpReceiver({
      sink,
      maxBodyBytes: config.receiver.maxBodyBytes,
      ...(config.receiver.authToken && { authToken: config.receiver.authToken }),
      ...(ready && { ready }),
      metrics,
    });
    await app.listen({ port: config.receiver.port, host: config.receiver.host });
    const address = app.server.address() as AddressInfo;
    url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/v1/traces`;
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    driver,
    close() {
      closing ??= (async () => {
        await app?.close(); // stop taking traffic first: nothing accepted after this point
        for (const close of closers) await close();
        await scoring?.shutdown();
        await Promise.all(redisConnections.map(r => r.quit().catch(() => r.disconnect())));
      })();
      return closing;
    },
  };
}

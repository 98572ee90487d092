import { Worker } from 'node:worker_threads';
import { boundedThreadLimits, OUT_OF_HEAP_ADVICE } from '../cli/bounded-heap.js';
import type { Config } from '../config/config-schema.js';
import { loadToolSchemas } from '../config/load-tool-schemas.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { MetricsExposition } from '../ingest/metrics-exposition.js';
import { createReceiverMetrics } from '../ingest/receiver-metrics.js';
import { SharedRefusal } from '../queue/shared-refusal.js';
import { createThreadQueueDriver } from '../queue/thread-queue-driver.js';
import { listenService } from './listen-service.js';
import { openMetricsRegistry } from './service-metrics.js';
import type { Service } from './service.js';
import { rebuildError, rpcClient, type CrossedError } from './thread-rpc.js';

/** What the scoring thread tells the receiving one when its workers run. */
export interface ScoringThreadInfo {
  exportEnabled: boolean;
  testCaseIdAttributes?: readonly string[];
}

/** Options of {@link startSplitService}. */
export interface SplitServiceOptions {
  /**
   * The scoring thread's V8 heap, in MB (`boundedThreadLimits`, as the one-thread service's);
   * absent: the heap V8's flags give every thread.
   */
  heapMb?: number;
  log: (line: string) => void;
}

/** A service on two threads: {@link Service}, and how it can end by itself. */
export interface SplitService extends Service {
  /**
   * Resolves when the scoring thread ended without being asked (out of its heap, or an error
   * nothing caught), with what ended it: from then on nothing is scored, and requests are
   * refused with 503. Never resolves after `close()`.
   */
  readonly failed: Promise<Error>;
}

/**
 * The embedded `memory` driver on two threads (`queue.memoryThreads: 2`): this one receives and
 * decodes OTLP requests and serves the results API, the page and `/metrics` (`listenService`); a
 * worker thread (`scoring-thread.ts`), bounded to `heapMb`, owns the traces: it assembles, scores,
 * stores and exports them. Accepted spans cross as span batches (`encodeSpanBatch`), their bytes
 * moved, never copied or cloned as objects; the API and `/metrics` read the scoring thread's
 * store, sessions and metrics through calls (`createThreadQueueDriver`).
 *
 * Contract: resolves once both threads run (the scoring thread's start-up lines said); rejects as
 * `startService` would when the scoring thread cannot start (an invalid suite: its
 * `SpanscoreError`). `close()` stops receiving, then asks the scoring thread to finish or let go
 * of its traces within `shutdownDeadlineMs` (as the one-thread service does), and waits for it to
 * end.
 */
export async function startSplitService(
  config: Readonly<Config>,
  options: SplitServiceOptions,
): Promise<SplitService> {
  const { log } = options;
  // The scoring thread's sink's `refusesNow`, published there and read here before decoding.
  const refusal = SharedRefusal.buffer();
  const published = new SharedRefusal(refusal);
  const thread = new Worker(new URL('./scoring-thread.js', import.meta.url), {
    workerData: { config, refusal },
    ...(options.heapMb !== undefined && { resourceLimits: boundedThreadLimits(options.heapMb) }),
  });
  const client = rpcClient(thread);
  let closing = false;
  let failedWith: (error: Error) => void = () => {};
  const failed = new Promise<Error>(resolve => (failedWith = resolve));
  const ended = new Promise<void>(resolve => thread.once('exit', () => resolve()));
  const info = await new Promise<ScoringThreadInfo>((resolve, reject) => {
    const onMessage = (message: {
      rpc?: string;
      info?: ScoringThreadInfo;
      error?: CrossedError;
    }): void => {
      if (message.rpc === 'ready') settle(() => resolve(message.info!));
      else if (message.rpc === 'failed') settle(() => reject(rebuildError(message.error!)));
    };
    const onError = (error: Error): void =>
      settle(() => reject(threadFailure(error, options.heapMb)));
    const onExit = (code: number): void =>
      settle(() => reject(new Error(`the scoring thread ended as it started (exit code ${code})`)));
    const settle = (then: () => void): void => {
      thread.off('message', onMessage).off('error', onError).off('exit', onExit);
      then();
    };
    thread.on('message', onMessage).once('error', onError).once('exit', onExit);
  });
  // From now on, a thread that ends unasked is a failure of the service: said once, and every
  // call waiting on it (a request held for room, an API read) refused as unavailable.
  let failure: SpanscoreError | undefined;
  const fail = (error: Error): void => {
    if (closing) return;
    const why = threadFailure(error, options.heapMb);
    // Said to every request from now on, before decoding: not the buffer's last published state.
    failure = why;
    client.closed(why);
    failedWith(why);
  };
  thread.once('error', fail);
  thread.once('exit', code => fail(new Error(`it ended with exit code ${code}`)));

  const service = await listenService(
    config,
    { receiver: true, workers: true },
    {
      driver: createThreadQueueDriver(client, {
        read: () => failure ?? published.read(),
      }),
      metrics: createReceiverMetrics(openMetricsRegistry()),
      moreMetrics: accept => client.call<MetricsExposition>('metrics', [accept]),
      ...(info.testCaseIdAttributes && { testCaseIdAttributes: info.testCaseIdAttributes }),
      exportEnabled: info.exportEnabled,
      givenSchemas: await loadToolSchemas(config.toolHealth.schemas),
      // After the driver's `close` call was answered: the thread ends by itself.
      shutdown: () => ended,
    },
    log,
  );
  return {
    ...service,
    failed,
    close() {
      closing = true;
      return service.close();
    },
  };
}

/**
 * What ended the scoring thread, as the service says it and answers requests: unavailable (503,
 * `Retry-After`), naming the setting to raise when it ran out of its heap.
 */
function threadFailure(
  error: Error & { code?: string },
  heapMb: number | undefined,
): SpanscoreError {
  return new SpanscoreError(
    'SS_INGEST_UNAVAILABLE',
    error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? `the scoring thread ran out of its ${heapMb === undefined ? '' : `${heapMb} MB `}heap: ${OUT_OF_HEAP_ADVICE}`
      : `the scoring thread failed: ${error.message}`,
    { retryAfterSeconds: 5 },
  );
}

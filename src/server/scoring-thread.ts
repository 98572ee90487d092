/**
 * The entry of the embedded driver's scoring thread (see `startSplitService`): the memory driver
 * and the scoring runtime, started from the validated config in `workerData`, answering the
 * receiving thread's calls (`createThreadQueueDriver` on that side) on `parentPort`.
 *
 * Contract: posts `{ rpc: 'ready', info }` once its workers run, or `{ rpc: 'failed', error }`
 * when it cannot start (an invalid suite), then ends. After the `close` call is answered it
 * closes its channel and its handles, and the thread ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config/config-schema.js';
import { metricsExposition } from '../ingest/metrics-exposition.js';
import { createReceiverMetrics } from '../ingest/receiver-metrics.js';
import { decodeSpanBatch, encodeSpanBatch } from '../redis/span-batch-codec.js';
import { SharedRefusal } from '../queue/shared-refusal.js';
import { SENDER_GONE } from '../queue/thread-queue-driver.js';
import { writeToFd } from '../log/write-to-fd.js';
import { startServiceCore } from './service-core.js';
import { answerCalls, crossError, Transferred } from './thread-rpc.js';
import type { ScoringThreadInfo } from './start-split-service.js';

const port = parentPort!;
const { config, refusal: refusalBuffer } = workerData as {
  config: Readonly<Config>;
  refusal: SharedArrayBuffer;
};

/**
 * How often, while its sink refuses, this thread publishes the sink's `refusesNow` again: room
 * appears as traces are scored here, between the receiving thread's requests. Timers run between
 * the scoring queue's slices, so a refusal is at most a slice and this old when room appears.
 * (Each look makes the sink's refusal, an error with its stack: every millisecond, a full buffer
 * waiting out a long settle window cost about 3% of a core.)
 */
const REFUSAL_RECHECK_MS = 5;
// Written to the process's stderr directly, never buffered in this thread's bounded heap for the
// main thread to take (a stalled reader would fill it; see `bounded-heap-thread.ts`).
const log = (line: string): void => writeToFd(2, `${line}\n`);

try {
  const core = await startServiceCore(config, { receiver: true, workers: true }, {}, log);
  const { driver } = core;
  const sink = driver.sink!;
  // The receiving thread counts what it receives: its families go from this registry, so that
  // `/metrics` names each once.
  for (const metric of createReceiverMetrics().registry.getMetricsAsArray())
    core.metrics.registry.removeSingleMetric(metric.name);
  // The sink's `refusesNow`, published for the receiving thread wherever it may change: as a
  // request is taken or settles, on shutdown, and every REFUSAL_RECHECK_MS while it refuses.
  const refusal = new SharedRefusal(refusalBuffer);
  let recheck: NodeJS.Timeout | undefined;
  const publish = (): void => {
    const refusing = refusal.publish(sink.refusesNow?.());
    if (refusing && !recheck) recheck = setInterval(publish, REFUSAL_RECHECK_MS).unref();
    else if (!refusing && recheck) {
      clearInterval(recheck);
      recheck = undefined;
    }
  };
  // Requests held for room whose sender may leave, by the receiving thread's id.
  const held = new Map<number, AbortController>();
  const part = (object: object) => (method: string, args: unknown[]) =>
    (object as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
  answerCalls(port, {
    async accept(id: number, bytes: Uint8Array, leaves: boolean) {
      const spans = decodeSpanBatch(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
      const controller = leaves ? new AbortController() : undefined;
      if (controller) held.set(id, controller);
      const accepted = sink.accept(spans, controller?.signal);
      publish();
      try {
        return (await accepted) ?? undefined;
      } finally {
        held.delete(id);
        publish();
      }
    },
    abort(id: number) {
      held.get(id)?.abort(new Error(SENDER_GONE));
    },
    stopWaiting() {
      sink.stopWaiting?.();
      publish();
    },
    results: part(driver.results),
    schemas: part(driver.schemas),
    exportBacklog: part(driver.exportBacklog),
    openSessions: (limit: number) => driver.openSessions?.(limit) ?? [],
    pendingTrace: (traceId: string) => driver.pendingTrace(traceId),
    async pendingSpans(traceId: string) {
      const spans = await driver.pendingSpans(traceId);
      if (!spans) return undefined;
      const bytes = new Uint8Array(encodeSpanBatch(spans));
      return new Transferred(bytes, [bytes.buffer]);
    },
    ready: () => driver.ready(),
    jobCounts: () => driver.jobCounts(),
    metrics: (accept: string | undefined) => metricsExposition(core.metrics.registry, accept),
    async close(deadlineMs: number) {
      const closing = driver.close(deadlineMs);
      publish();
      const closed = await closing;
      clearInterval(recheck);
      await core.shutdown();
      // Answered first, then the channel goes: nothing is left to keep this thread.
      setImmediate(() => port.close());
      return closed;
    },
  });
  const info: ScoringThreadInfo = {
    exportEnabled: core.exportEnabled,
    ...(core.testCaseIdAttributes && { testCaseIdAttributes: core.testCaseIdAttributes }),
  };
  port.postMessage({ rpc: 'ready', info });
} catch (error) {
  port.postMessage({ rpc: 'failed', error: crossError(error) });
}

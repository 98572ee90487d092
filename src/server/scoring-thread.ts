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
import { SENDER_GONE } from '../queue/thread-queue-driver.js';
import { writeToFd } from '../log/write-to-fd.js';
import { startServiceCore } from './service-core.js';
import { answerCalls, crossError, Transferred } from './thread-rpc.js';
import type { ScoringThreadInfo } from './start-split-service.js';

const port = parentPort!;
const { config } = workerData as { config: Readonly<Config> };
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
  // Requests held for room whose sender may leave, by the receiving thread's id.
  const held = new Map<number, AbortController>();
  const part = (object: object) => (method: string, args: unknown[]) =>
    (object as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
  answerCalls(port, {
    async accept(id: number, bytes: Uint8Array, leaves: boolean) {
      const spans = decodeSpanBatch(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
      const controller = leaves ? new AbortController() : undefined;
      if (controller) held.set(id, controller);
      try {
        return (await sink.accept(spans, controller?.signal)) ?? undefined;
      } finally {
        held.delete(id);
      }
    },
    abort(id: number) {
      held.get(id)?.abort(new Error(SENDER_GONE));
    },
    stopWaiting() {
      sink.stopWaiting?.();
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
      const closed = await driver.close(deadlineMs);
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

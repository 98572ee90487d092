import type { SpanDigest } from '../ingest/span-digest.js';
import type { PartlyRefused, SpanSink } from '../ingest/span-sink.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import { decodeSpanBatch, encodeSpanBatch } from '../redis/span-batch-codec.js';
import type { ResultsStore } from '../results/results-store.js';
import type { SchemaRegistry } from '../score/schemas/schema-registry.js';
import type { RpcClient } from '../server/thread-rpc.js';
import type { QueueDriver } from './queue-driver.js';
import type { OpenSession } from './session-policy.js';
import type { SharedRefusal } from './shared-refusal.js';
import type { TraceProgress } from './trace-readiness.js';

/**
 * The message a scoring thread rejects a held request with when its sender left: the calling
 * thread rejects with its own signal's reason instead, as `SpanSink.accept` promises.
 */
export const SENDER_GONE = 'the sender closed its connection while its request waited for room';

/**
 * The embedded `memory` driver as the receiving thread sees it when another thread scores (the
 * embedded driver on two threads, see `startSplitService`): every call goes to that thread through
 * `client`, answered by the scoring thread's handlers (`scoring-thread.ts`).
 *
 * Contract:
 * - `sink.accept` writes the spans as one span batch (`encodeSpanBatch`: unread attributes are
 *   copied as their wire bytes, never decoded) and moves its bytes to the scoring thread; it
 *   resolves or rejects as that thread's sink did (a `SpanscoreError` keeps its code and
 *   `retryAfterSeconds`), and with the caller's `signal` reason when its sender left while the
 *   request waited for room.
 * - `sink.refusesNow` is the scoring thread's sink's answer as that thread last published it in
 *   `refusal` (shared memory, read without a call): a full buffer refuses a request before the
 *   receiver decodes it, as beside the sink. A refusal published a moment before room appeared
 *   refuses a request the sink would have let wait at the door (429 and `Retry-After`, sent again
 *   by the exporter); one not yet published lets a request through, and the sink decides.
 * - `results`, `schemas` and `exportBacklog` read through calls (what the API and `/metrics`
 *   use); their writers run in the scoring thread and are not called here.
 * - `startWorkers` is never called: the scoring thread runs them.
 */
export function createThreadQueueDriver(
  client: RpcClient,
  refusal: Pick<SharedRefusal, 'read'>,
): QueueDriver {
  let nextRequest = 1;
  const sink: SpanSink = {
    refusesNow: () => refusal.read(),
    async accept(spans: SpanDigest[], signal?: AbortSignal): Promise<PartlyRefused | void> {
      const batch = encodeSpanBatch(spans);
      // Moved, not copied: a buffer of its own (a large one always is; a small one may sit in
      // Node's shared pool, and is copied out of it).
      const bytes =
        batch.byteOffset === 0 && batch.byteLength === batch.buffer.byteLength
          ? batch
          : new Uint8Array(batch);
      const id = nextRequest++;
      const leave = (): void => client.notify('abort', [id]);
      signal?.addEventListener('abort', leave, { once: true });
      try {
        const partly = await client.call<PartlyRefused | undefined>(
          'accept',
          [id, bytes, signal !== undefined],
          [bytes.buffer as ArrayBuffer],
        );
        return partly ?? undefined;
      } catch (error) {
        if (signal?.aborted && (error as Error).message === SENDER_GONE) throw signal.reason;
        throw error;
      } finally {
        signal?.removeEventListener('abort', leave);
      }
    },
    stopWaiting() {
      client.notify('stopWaiting', []);
    },
  };
  return {
    name: 'memory',
    sink,
    judgeState: { limits: 'process' },
    results: forwarded<ResultsStore>(client, 'results', { name: 'memory' }),
    schemas: forwarded<SchemaRegistry>(client, 'schemas', { name: 'memory' }),
    exportBacklog: forwarded<ExportBacklog>(client, 'exportBacklog', {}),
    openSessions: limit => client.call<OpenSession[]>('openSessions', [limit]),
    startWorkers() {
      throw new Error('the scoring thread runs the workers');
    },
    pendingTrace: traceId =>
      client.call<(TraceProgress & { scoring?: boolean }) | undefined>('pendingTrace', [traceId]),
    async pendingSpans(traceId) {
      const bytes = await client.call<Uint8Array | undefined>('pendingSpans', [traceId]);
      return bytes && decodeSpanBatch(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    },
    ready: () => client.call<boolean>('ready', []),
    jobCounts: () => client.call<Record<string, number>>('jobCounts', []),
    close: deadlineMs => client.call<{ unfinished: number }>('close', [deadlineMs]),
  };
}

/**
 * An object of `T`'s methods, each a call of `part.method(...args)` in the scoring thread, with
 * `fields` as its other properties.
 */
function forwarded<T extends object>(client: RpcClient, part: string, fields: Partial<T>): T {
  return new Proxy(fields as T, {
    get(target, key) {
      // (`then`: not a thenable, so that awaiting the object is not a call.)
      if (typeof key !== 'string' || key === 'then' || Object.hasOwn(target, key))
        return (target as Record<PropertyKey, unknown>)[key];
      return (...args: unknown[]) => client.call(part, [key, args]);
    },
  });
}

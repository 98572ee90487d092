import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';

/** A local OTLP/HTTP backend for evaluation spans, with switches to make it slow, hang or fail. */
export interface OtlpBackend {
  url: string;
  /** Every span it accepted, in order (a span sent twice appears twice). */
  spans: SpanDigest[];
  /** Requests received, accepted or not. */
  requests: () => number;
  /** While true, requests get 503 with Retry-After 1. */
  down: boolean;
  /** While true, requests that arrive are held unanswered until the backend closes. */
  hang: boolean;
  /**
   * Runs as a request arrives, before it is answered (its spans kept after it resolves), told the
   * request's number (1 for the first): e.g. pauses Redis so that what the exporter's caller does
   * right after a successful export meets Redis paused.
   */
  onRequest?: (request: number) => void | Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the backend on 127.0.0.1 (it is spanscore's own receiver, so it speaks real OTLP). Each
 * request waits `delayMs` before its spans are kept.
 */
export async function startOtlpBackend(delayMs = 0): Promise<OtlpBackend> {
  let requests = 0;
  let closed = false;
  const backend: OtlpBackend = {
    url: '',
    spans: [],
    requests: () => requests,
    down: false,
    hang: false,
    close: () => Promise.resolve(),
  };
  const app = createOtlpHttpReceiver({
    sink: {
      accept: async spans => {
        requests++;
        await backend.onRequest?.(requests);
        // A request that came in while hanging stays held until the backend closes.
        const held = backend.hang;
        while (held && !closed) await new Promise(r => setTimeout(r, 20));
        if (held) return;
        if (backend.down)
          throw new SpanscoreError('SS_INGEST_UNAVAILABLE', 'backend down (test)', {
            retryAfterSeconds: 1,
          });
        await new Promise(r => setTimeout(r, delayMs));
        backend.spans.push(...spans);
      },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  backend.url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v1/traces`;
  backend.close = async () => {
    closed = true;
    await app.close();
  };
  return backend;
}

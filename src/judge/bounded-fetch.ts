import { SpanscoreError } from '../errors/spanscore-error.js';

/**
 * The longest wait a judge endpoint's `Retry-After` (or `retry-after-ms`) is followed for, in
 * seconds: a longer one is read as this. The `openai` client sleeps for whatever the header says,
 * and the judge queue pauses for it (an HTTP date in the year 9999 paused it for 7,975 years; the
 * memory driver's timer, past 2^31 ms, fired after 1 ms instead and asked again at once, forever).
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

/** Options of {@link boundedFetch}. */
export interface BoundedFetchOptions {
  /** Bytes of one response body read at most; past them the read ends in an error. */
  maxResponseBytes: number;
  /** The whole exchange, the body's last byte included, ends by then. */
  timeoutMs: number;
}

/**
 * The `fetch` the judge's `openai` client uses: the endpoint's answers are untrusted, so each is
 * bounded where it is read. A body longer than `maxResponseBytes` (its `content-length`, or the
 * bytes as they arrive) is not read past the bound and its read rejects with
 * `SS_JUDGE_UNAVAILABLE` saying so; the client's own timeout ends when the headers arrive, so a
 * body still arriving `timeoutMs` after the request started (a server that trickles bytes) is
 * aborted with `SS_JUDGE_UNAVAILABLE` too. Both errors surface where the client parses the body,
 * past its retries: the judge's caller retries (the judge pass) or reports them. A `Retry-After`
 * is rewritten as seconds (to the millisecond) from 0 to {@link MAX_RETRY_AFTER_SECONDS} (`retry-after-ms` folded
 * into it), so neither the client nor the judge queue waits longer.
 */
export function boundedFetch(options: BoundedFetchOptions): typeof fetch {
  const { maxResponseBytes, timeoutMs } = options;
  return async (input, init) => {
    const controller = new AbortController();
    const signal = init?.signal
      ? AbortSignal.any([init.signal, controller.signal])
      : controller.signal;
    const timer = setTimeout(
      () =>
        controller.abort(
          new SpanscoreError(
            'SS_JUDGE_UNAVAILABLE',
            `the judge endpoint's answer did not arrive whole within ${timeoutMs} ms (judge.timeoutMs)`,
          ),
        ),
      timeoutMs,
    );
    timer.unref();
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal });
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
    const headers = boundedRetryAfter(response.headers);
    const body = response.body;
    if (!body) {
      clearTimeout(timer);
      return new Response(null, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
    const tooLarge = (what: string) =>
      new SpanscoreError(
        'SS_JUDGE_UNAVAILABLE',
        `the judge endpoint's answer is larger than ${maxResponseBytes} bytes (${what}; judge.maxResponseBytes): not read past it`,
      );
    const declared = Number(response.headers.get('content-length'));
    let read = 0;
    const bounded = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, stream) {
        read += chunk.byteLength;
        if (read > maxResponseBytes) {
          const error = tooLarge(`${read} bytes read`);
          stream.error(error);
          controller.abort(error);
          return;
        }
        stream.enqueue(chunk);
      },
      flush: () => clearTimeout(timer),
    });
    if (declared > maxResponseBytes) {
      const error = tooLarge(`content-length ${declared}`);
      controller.abort(error);
      clearTimeout(timer);
      const refused = new ReadableStream<Uint8Array>({ start: stream => stream.error(error) });
      return new Response(refused, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    }
    const piped = body.pipeThrough(bounded, { signal: controller.signal });
    return new Response(piped, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/** `headers` with any Retry-After as seconds within 0 to MAX_RETRY_AFTER_SECONDS. */
function boundedRetryAfter(source: Headers): Headers {
  const ms = source.get('retry-after-ms');
  const value = source.get('retry-after');
  if (ms === null && value === null) return source;
  const headers = new Headers(source);
  headers.delete('retry-after-ms');
  headers.delete('retry-after');
  const seconds = retryAfterSeconds(ms, value);
  if (seconds !== undefined)
    headers.set(
      'retry-after',
      String(Math.round(Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS) * 1000) / 1000),
    );
  return headers;
}

/** Seconds asked for: `retry-after-ms`, else `retry-after` in seconds or an HTTP date. */
function retryAfterSeconds(ms: string | null, value: string | null): number | undefined {
  const fromMs = Number(ms ?? undefined);
  if (Number.isFinite(fromMs)) return fromMs / 1000;
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : (date - Date.now()) / 1000;
}

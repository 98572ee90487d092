import { SpanscoreError } from '../errors/spanscore-error.js';

/** The refusals a sink's `refusesNow` gives, by their number in the state word (0: accepting). */
const CODES = ['SS_INGEST_SATURATED', 'SS_INGEST_UNAVAILABLE'] as const;

/** Bytes of a refusal's message kept (UTF-8, whole characters); the rest is cut. */
const MAX_MESSAGE_BYTES = 512;

// Int32 words before the message: a sequence number (odd while the writer writes), the code's
// number, `retryAfterSeconds`, the message's length in bytes.
const SEQUENCE = 0;
const CODE = 1;
const RETRY_AFTER = 2;
const LENGTH = 3;
const HEADER_BYTES = 4 * Int32Array.BYTES_PER_ELEMENT;

/**
 * Reads a writer that is writing at every try are few: a write is a handful of stores. Past
 * them `read` answers `undefined`, and the sink's `accept` decides as it would without this.
 */
const READ_TRIES = 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A sink's `refusesNow` answer shared between two threads through a `SharedArrayBuffer`: the
 * thread that owns the sink publishes it ({@link SharedRefusal.publish}) and another thread reads
 * it without a message or a wait ({@link SharedRefusal.read}), so that a receiver on that thread
 * refuses a request before decoding it, as it does beside the sink (see `SpanSink.refusesNow`).
 *
 * Contract:
 * - One writer. Readers never see a half-written refusal: each write is bracketed by a
 *   sequence number (odd while writing), and a read that saw it move tries again (at most
 *   {@link READ_TRIES} times, then answers `undefined`).
 * - Only `SS_INGEST_SATURATED` and `SS_INGEST_UNAVAILABLE` are shared, with their message (its
 *   first {@link MAX_MESSAGE_BYTES} bytes) and `retryAfterSeconds`; any other refusal is
 *   published as none.
 * - The answer is as fresh as the last `publish`: the writer publishes whenever it may have
 *   changed, and a reader acts on what was published then.
 */
export class SharedRefusal {
  /** A buffer for one refusal, to hand to both threads. */
  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(HEADER_BYTES + MAX_MESSAGE_BYTES);
  }

  readonly #words: Int32Array;
  readonly #message: Uint8Array;
  // The writer's last published refusal (compared, not written again when unchanged).
  #published: SpanscoreError | undefined;
  // A reader's last refusal read, and the sequence number it was read at.
  #readAt = -1;
  #read: SpanscoreError | undefined;

  constructor(buffer: SharedArrayBuffer) {
    this.#words = new Int32Array(buffer, 0, HEADER_BYTES / Int32Array.BYTES_PER_ELEMENT);
    this.#message = new Uint8Array(buffer, HEADER_BYTES);
  }

  /**
   * Publishes `refusal` (the sink's `refusesNow()`), unless it is what was published last; returns
   * whether a refusal is published now.
   */
  publish(refusal: SpanscoreError | undefined): boolean {
    const code = refusal ? CODES.indexOf(refusal.code as (typeof CODES)[number]) + 1 : 0;
    const shared = code === 0 ? undefined : refusal;
    const last = this.#published;
    if (
      shared === last ||
      (shared !== undefined &&
        last !== undefined &&
        shared.code === last.code &&
        shared.message === last.message &&
        shared.retryAfterSeconds === last.retryAfterSeconds)
    )
      return code !== 0;
    this.#published = shared;
    const words = this.#words;
    const sequence = Atomics.load(words, SEQUENCE);
    Atomics.store(words, SEQUENCE, sequence + 1);
    Atomics.store(words, CODE, code);
    Atomics.store(words, RETRY_AFTER, Math.ceil(shared?.retryAfterSeconds ?? 0));
    const { written } = shared ? encoder.encodeInto(shared.message, this.#message) : { written: 0 };
    Atomics.store(words, LENGTH, written);
    Atomics.store(words, SEQUENCE, sequence + 2);
    return code !== 0;
  }

  /** The refusal published last, or `undefined` (none, or none read whole). */
  read(): SpanscoreError | undefined {
    const words = this.#words;
    for (let tries = 0; tries < READ_TRIES; tries++) {
      const sequence = Atomics.load(words, SEQUENCE);
      // (Bitwise: past 2^31 writes the number wraps to negative, where `% 2` is -1.)
      if ((sequence & 1) !== 0) continue;
      if (sequence === this.#readAt) return this.#read;
      const code = Atomics.load(words, CODE);
      const retryAfterSeconds = Atomics.load(words, RETRY_AFTER);
      const length = Math.min(Atomics.load(words, LENGTH), MAX_MESSAGE_BYTES);
      // Copied out of the shared memory once (a decoder refuses shared views).
      const message = code === 0 ? '' : decoder.decode(this.#message.slice(0, length));
      if (Atomics.load(words, SEQUENCE) !== sequence) continue;
      this.#readAt = sequence;
      this.#read =
        code === 0
          ? undefined
          : new SpanscoreError(CODES[code - 1]!, message, { retryAfterSeconds });
      return this.#read;
    }
    return undefined;
  }
}

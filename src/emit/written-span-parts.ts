import type { ProtobufWriter } from '../protobuf/protobuf-writer.js';
import { WIRE } from '../protobuf/wire-type.js';
import type { EvaluationAttributeValue } from './score-to-span.js';

/** `Span.Event.attributes` (3) as a `KeyValue` field's tag: one byte, as field 9's is. */
const EVENT_ATTRIBUTE_TAG = (3 << 3) | WIRE.LEN;
/** Lists of one trace whose bytes are kept for copying; past them, lists are encoded each time. */
const MAX_LISTS = 8;
/** A span's first attributes whose places are kept, for its event to copy. */
const MAX_LEADING = 16;
/** The last place kept (an Int32Array's largest value): a request past it copies nothing. */
const MAX_PLACE = 0x7fffffff;

/**
 * What one request's spans wrote that a later span copies rather than encodes again (a measured
 * hot path: a trace's four evaluation spans were 40,000 instructions each, mostly encoding the
 * same lists and keys again). Copies are exact, for two reasons the encoder's input guarantees:
 *
 * - The spans of one trace share their lists (tools used, tool sequence, agents, expected tools:
 *   `TraceFacts`; nothing changes them once built), so a list value under the same key as one
 *   written for an earlier span of the same trace, the same array, has the same bytes. Kept for
 *   the current trace only (spans of one trace come together), at most {@link MAX_LISTS}.
 * - `scoreToSpan` starts a span's attributes with its event's, in order and the same values: when
 *   they are (checked, key by key and value by value), the event copies that run of records and
 *   rewrites each record's tag (field 3 for 9). Anything else is encoded as it is.
 *
 * Places are where the records sit in the writer's buffer: a span's closing may move its content
 * along (a length past 127 bytes), and {@link WrittenSpanParts.moved} moves the kept places with it.
 * For one request at a time: {@link WrittenSpanParts.startSpan} before each span, then its
 * {@link WrittenSpanParts.attributes} and {@link WrittenSpanParts.eventAttributes}, `moved` once
 * the span is closed, and {@link WrittenSpanParts.forget} after the last.
 */
export class WrittenSpanParts {
  private traceId = '';
  private lists = 0;
  private readonly listOf = new Array<readonly string[] | undefined>(MAX_LISTS);
  private readonly keyOf = new Array<string | undefined>(MAX_LISTS);
  // Where each kept list's record starts and ends: [start, end] pairs.
  // Int32 (small integers read back, never a boxed number: Float64 places cost 62 bytes a scored
  // span of allocation); past MAX_PLACE nothing is kept.
  private readonly listAt = new Int32Array(2 * MAX_LISTS);
  // The current span's first attributes: their keys, where the first starts, where each ends.
  private leading = 0;
  private leadingStart = 0;
  private readonly leadingKeys = new Array<string | undefined>(MAX_LEADING);
  private readonly leadingEnds = new Int32Array(MAX_LEADING);

  startSpan(traceId: string): void {
    if (traceId !== this.traceId) {
      this.forgetLists();
      this.traceId = traceId;
    }
    this.leading = 0;
  }

  /**
   * Lets go of the request's lists and keys, so that an instance kept from request to request
   * (one at a time: encoding is synchronous) holds nothing alive in between.
   */
  forget(): void {
    this.forgetLists();
    this.leadingKeys.fill(undefined);
    this.leading = 0;
    this.traceId = '';
  }

  private forgetLists(): void {
    this.listOf.fill(undefined, 0, this.lists);
    this.keyOf.fill(undefined, 0, this.lists);
    this.lists = 0;
  }

  /** The span's attributes (field 9), a list copied when this trace's spans wrote it already. */
  attributes(
    w: ProtobufWriter,
    attributes: Readonly<Record<string, EvaluationAttributeValue>>,
  ): void {
    this.leadingStart = w.length;
    let n = 0;
    for (const key in attributes) {
      const value = attributes[key]!;
      if (!Array.isArray(value) || !this.repeatList(w, key, value)) {
        const start = w.length;
        w.tag(9, WIRE.LEN);
        w.keyValue(key, value, 'int-or-double');
        if (Array.isArray(value)) this.keepList(key, value, start, w.length);
      }
      if (n < MAX_LEADING) {
        this.leadingKeys[n] = key;
        this.leadingEnds[n] = w.length;
      }
      n++;
    }
    // Places past what an Int32Array holds (a request of 2 GiB) are not kept, nor copied from.
    this.leading = w.length > MAX_PLACE ? 0 : Math.min(n, MAX_LEADING);
  }

  /**
   * The event's attributes (field 3): copied from the span's first ones when they are the same
   * keys, in order, with the same values; else encoded.
   */
  eventAttributes(
    w: ProtobufWriter,
    attributes: Readonly<Record<string, EvaluationAttributeValue>>,
    spanAttributes: Readonly<Record<string, EvaluationAttributeValue>>,
  ): void {
    let k = 0;
    for (const key in attributes) {
      if (
        k >= this.leading ||
        this.leadingKeys[k] !== key ||
        attributes[key] !== spanAttributes[key]
      ) {
        w.keyValues(3, attributes, 'int-or-double');
        return;
      }
      k++;
    }
    if (k === 0) return;
    const start = w.length;
    const from = this.leadingStart;
    w.repeat(from, this.leadingEnds[k - 1]!);
    // Each record's first byte is its tag: the first at the start, the others where one ended.
    w.patch(start, EVENT_ATTRIBUTE_TAG);
    for (let i = 0; i < k - 1; i++)
      w.patch(start + this.leadingEnds[i]! - from, EVENT_ATTRIBUTE_TAG);
  }

  /** The span that opened at `at` closed, its content moved along by `by` bytes. */
  moved(at: number, by: number): void {
    if (by === 0) return;
    const places = this.listAt;
    for (let i = 0; i < 2 * this.lists; i++) {
      if (places[i]! <= at) continue;
      if (places[i]! + by > MAX_PLACE) {
        this.forgetLists();
        return;
      }
      places[i] = places[i]! + by;
    }
  }

  private repeatList(w: ProtobufWriter, key: string, list: readonly string[]): boolean {
    for (let i = 0; i < this.lists; i++)
      if (this.listOf[i] === list && this.keyOf[i] === key) {
        w.repeat(this.listAt[2 * i]!, this.listAt[2 * i + 1]!);
        return true;
      }
    return false;
  }

  private keepList(key: string, list: readonly string[], start: number, end: number): void {
    if (this.lists === MAX_LISTS || end > MAX_PLACE) return;
    const i = this.lists++;
    this.listOf[i] = list;
    this.keyOf[i] = key;
    this.listAt[2 * i] = start;
    this.listAt[2 * i + 1] = end;
  }
}

import type { RecordCopier } from './record-copier.js';
import {
  readAttributeRecords,
  SPAN_ATTRIBUTES_FIELD,
  skippedUnread,
} from './protobuf-key-value.js';
import type {
  Attributes,
  SpanDigest,
  SpanEventDigest,
  SpanKind,
  StatusCode,
} from './span-digest.js';

/** Where a span's attributes sit in wire form: OTLP `KeyValue` records of field 9. */
export interface AttributeRecords {
  buf: Buffer;
  start: number;
  end: number;
}

/**
 * A span digest whose attributes stay in their protobuf wire form (the `KeyValue` records of
 * `Span.attributes`, field 9) until something reads `attributes`; they are decoded then, once, and
 * the bytes are let go. The protobuf decoder and the span batch codec make these.
 *
 * Why: the receiver of the `bullmq` driver never reads an attribute. It passes the records on to
 * Redis as they came ({@link WireSpanDigest.attributeRecords}), and the worker decodes them where an
 * extractor reads them, so each attribute is decoded once between the exporter and the scorer.
 *
 * Contract:
 * - `attributes` is an own, enumerable property (an accessor), so spreading a span, `toEqual` and
 *   `JSON.stringify` see it as on any other digest. Assigning to it replaces the attributes.
 * - The bytes must have passed `checkKeyValue` (both makers check them before constructing), so
 *   reading `attributes` never throws.
 * - Until then the span keeps `buf` alive: for a decoded request, the whole request body. The
 *   buffer must not be modified afterwards. Whatever holds spans for long moves their records to
 *   bytes of its own first ({@link WireSpanDigest.moveRecords}: the memory driver does, on
 *   arrival); the `bullmq` receiver copies and drops them.
 */
export class WireSpanDigest implements SpanDigest {
  declare attributes: Attributes;
  // The attributes once decoded (`#buf` then `undefined`); while `#buf` is still set, what
  // spanscore's own readers read (`readAttributes`) when it left records out, if they did. One
  // field for both: 8 heap bytes a span less than two.
  #attributes: Attributes | undefined;
  // The records' bytes, until `attributes` is read or set (three fields, not an object: one
  // allocation less per span).
  #buf: Buffer | undefined;
  #start: number;
  #end: number;

  constructor(
    public traceId: string,
    public spanId: string,
    public parentSpanId: string,
    public name: string,
    public kind: SpanKind,
    public startTimeUnixNano: bigint,
    public endTimeUnixNano: bigint,
    recordsBuf: Buffer,
    recordsStart: number,
    recordsEnd: number,
    public events: SpanEventDigest[],
    public statusCode: StatusCode,
    public statusMessage: string,
    public serviceName: string,
    public scopeName: string,
    public serviceVersion = '',
    public deploymentEnvironment = '',
  ) {
    this.#buf = recordsBuf;
    this.#start = recordsStart;
    this.#end = recordsEnd;
    // The same getter and setter for every instance: V8 shares the transition to this accessor,
    // so every WireSpanDigest keeps one fast-mode shape.
    Object.defineProperty(this, 'attributes', WireSpanDigest.#accessor);
  }

  /**
   * The attribute records as they came, or `undefined` once `attributes` has been read or set
   * (the decoded object is then the truth).
   */
  attributeRecords(): AttributeRecords | undefined {
    const buf = this.#buf;
    return buf && { buf, start: this.#start, end: this.#end };
  }

  /** Bytes {@link WireSpanDigest.moveRecords} would copy: 0 once `attributes` was read or set. */
  recordsLength(): number {
    return this.#buf ? this.#end - this.#start : 0;
  }

  /**
   * Copies the attribute records, still unread, into `target` at `at` and reads them from there
   * from now on, so the span no longer keeps the buffer it was decoded from (a request body)
   * alive. Returns the bytes copied (0 when the attributes were read already). `target` must not
   * be modified afterwards. `copier` (of `target`) copies short records without an object made
   * each call; without it, `Buffer#copy`.
   */
  moveRecords(target: Buffer, at: number, copier?: RecordCopier): number {
    const buf = this.#buf;
    if (!buf) return 0;
    const start = this.#start;
    const n = this.#end - start;
    if (copier) copier.copy(buf, start, this.#end, at);
    else buf.copy(target, at, start, this.#end);
    this.#buf = target;
    this.#start = at;
    this.#end = at + n;
    return n;
  }

  /**
   * The attributes but those in an unread family (`UNREAD_ATTRIBUTE_FAMILIES`), decoded once:
   * what `readAttributes` hands spanscore's own readers. When the span has none in a family (or
   * `attributes` was read or set already) this is `attributes` itself, and no later read of
   * `attributes` decodes again; else the records stay, and `attributes` decodes them all when
   * read.
   */
  readAttributes(): Attributes {
    // Decoded already, whole (no bytes left) or but the unread families (bytes kept).
    if (this.#attributes !== undefined) return this.#attributes;
    const read = readAttributeRecords(
      this.#buf!,
      this.#start,
      this.#end,
      SPAN_ATTRIBUTES_FIELD,
      true,
    );
    this.#attributes = read;
    if (!skippedUnread()) this.#buf = undefined;
    return read;
  }

  static readonly #accessor: PropertyDescriptor = {
    get(this: WireSpanDigest): Attributes {
      // Records still held: `#attributes` is at most what `readAttributes` read of them.
      if (this.#buf !== undefined) {
        this.#attributes = readAttributeRecords(
          this.#buf,
          this.#start,
          this.#end,
          SPAN_ATTRIBUTES_FIELD,
        );
        this.#buf = undefined;
      }
      return this.#attributes!;
    },
    set(this: WireSpanDigest, value: Attributes): void {
      this.#attributes = value;
      this.#buf = undefined;
    },
    enumerable: true,
    configurable: true,
  };
}

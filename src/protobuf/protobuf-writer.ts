import type { AttributeValue } from './attribute-value.js';
import { writeU64LE } from './u64-le.js';
import { WIRE } from './wire-type.js';

/**
 * How numbers become `AnyValue`s: `double` always (the span batch codec: every JS number exactly),
 * or `int-or-double`: an integer within the safe range as `int_value`, as the OpenTelemetry SDK's
 * exporters write attributes.
 */
export type NumberEncoding = 'double' | 'int-or-double';

/** Each hex digit's value by its character code (below 128); -1 for a character that is not one. */
const HEX_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX_DIGIT[0x30 + i] = i;
for (let i = 0; i < 6; i++) HEX_DIGIT[0x61 + i] = HEX_DIGIT[0x41 + i] = 10 + i;

/** Keys already encoded, by key (`EncodedKeys`): a `KeyValue`'s key field and its value's tag. */
export interface KeyEncodings {
  of(key: string): Uint8Array | undefined;
}

/**
 * An append-only protobuf writer into one growing Buffer, for the measured hot paths that write
 * the wire format themselves (the span batch codec, the evaluation span encoder). Strings are
 * written by the runtime's UTF-8 encoder (`Buffer.write`), not character by character; a
 * length-delimited field whose length is not known yet takes one byte, moved along in the rare
 * case the content passes 127 bytes ({@link ProtobufWriter.openLength}).
 */
export class ProtobufWriter {
  private buf: Buffer;
  private pos = 0;

  /**
   * `keys`: where {@link ProtobufWriter.keyValue} finds keys already encoded, to copy rather than
   * encode again; for a writer whose keys come from a small fixed set (the evaluation span
   * encoder's). Without it, every key is encoded. `strings`: likewise, string values' encoded
   * `AnyValue`s (`EncodedStrings`), for {@link ProtobufWriter.anyValue} to copy.
   */
  constructor(
    size = 1024,
    private readonly keys?: KeyEncodings,
    private readonly strings?: KeyEncodings,
  ) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** The bytes written (a view of the writer's buffer: write no more after taking it). */
  done(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  /** Bytes written so far: where the next one goes. */
  get length(): number {
    return this.pos;
  }

  /**
   * Bytes already written, from `start` to `end`, written again at the end: for a field the
   * caller knows would encode to the same bytes as one it wrote before (and whose bytes nothing
   * has moved since: see {@link ProtobufWriter.closeLength}).
   */
  repeat(start: number, end: number): void {
    const n = end - start;
    this.ensure(n);
    this.buf.copyWithin(this.pos, start, end);
    this.pos += n;
  }

  /** Overwrites the byte at `at`, written already. */
  patch(at: number, n: number): void {
    this.buf[at] = n;
  }

  byte(n: number): void {
    this.ensure(1);
    this.buf[this.pos++] = n;
  }

  /** An unsigned varint of at most 32 bits. */
  varint(n: number): void {
    this.ensure(5);
    while (n > 0x7f) {
      this.buf[this.pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.pos++] = n;
  }

  /**
   * A safe integer as protobuf's int64 varint: a negative one as its 64-bit two's complement
   * (ten bytes), as every protobuf runtime writes it.
   */
  int64(n: number): void {
    if (n >= 0 && n <= 0xffffffff) return this.varint(n >>> 0);
    let lo: number;
    let hi: number;
    if (n >= 0) {
      lo = n >>> 0;
      hi = Math.floor(n / 0x100000000) >>> 0;
    } else {
      const abs = -n;
      lo = abs >>> 0;
      hi = Math.floor(abs / 0x100000000) >>> 0;
      // Two's complement of (hi, lo).
      lo = ~lo >>> 0;
      hi = ~hi >>> 0;
      lo = (lo + 1) >>> 0;
      if (lo === 0) hi = (hi + 1) >>> 0;
    }
    this.ensure(10);
    while (hi > 0 || lo > 0x7f) {
      this.buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.pos++] = lo;
  }

  /** A field's tag. */
  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A string's varint byte length and UTF-8 bytes (no tag). */
  string(s: string): void {
    // Up to 42 UTF-16 units take at most 126 bytes: a one-byte length, written after the bytes.
    if (s.length < 43) {
      this.ensure(1 + s.length * 3);
      const buf = this.buf;
      const start = this.pos + 1;
      // ASCII (names, keys, ids) byte by byte: twice as fast as a call into the runtime's
      // encoder for strings this short (measured 70 against 140 ns).
      let p = start;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      const n = i === s.length ? p - start : buf.write(s, start, 'utf8');
      buf[this.pos] = n;
      this.pos = start + n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.varint(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  /** A string field: tag and string. */
  stringField(field: number, s: string): void {
    this.tag(field, WIRE.LEN);
    this.string(s);
  }

  /** A bytes field holding the bytes a string of hex digits spells (an id). */
  hexField(field: number, hex: string): void {
    this.tag(field, WIRE.LEN);
    const n = hex.length >>> 1;
    this.varint(n);
    this.ensure(n);
    // Pairs of digits in a loop: a call into the runtime's hex decoder cost more than the 8 or 16
    // bytes of an id. A string that is not all hex digits takes the decoder's way (it stops at the
    // first pair that is not).
    const buf = this.buf;
    const at = this.pos;
    for (let i = 0; i < n; i++) {
      const a = hex.charCodeAt(2 * i);
      const b = hex.charCodeAt(2 * i + 1);
      const hi = a < 128 ? HEX_DIGIT[a]! : -1;
      const lo = b < 128 ? HEX_DIGIT[b]! : -1;
      if ((hi | lo) < 0) {
        this.pos += buf.write(hex, at, n, 'hex');
        return;
      }
      buf[at + i] = (hi << 4) | lo;
    }
    this.pos = at + n;
  }

  /**
   * An unsigned 64-bit integer, little-endian (fixed64), from a bigint; one outside `[0, 2^64)`
   * throws a `RangeError`, as `writeBigUInt64LE` does.
   */
  u64(n: bigint): void {
    this.ensure(8);
    writeU64LE(this.buf, this.pos, n);
    this.pos += 8;
  }

  double(n: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(n, this.pos);
    this.pos += 8;
  }

  fixed32(n: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(n >>> 0, this.pos);
    this.pos += 4;
  }

  /** Bytes copied as they are. */
  copy(from: Uint8Array, start = 0, end = from.length): void {
    this.ensure(end - start);
    this.buf.set(from.subarray(start, end), this.pos);
    this.pos += end - start;
  }

  /**
   * Starts a length-delimited value whose length is not known yet: one byte is kept for it, and
   * {@link ProtobufWriter.closeLength} moves the content along in the rare case the length needs
   * more. Returns where, for `closeLength`.
   */
  openLength(): number {
    this.ensure(1);
    return this.pos++;
  }

  /**
   * Ends the length-delimited value {@link ProtobufWriter.openLength} started at `at`. Content past
   * 127 bytes is moved along by the length's extra bytes: positions taken inside it
   * ({@link ProtobufWriter.length}) move by as much.
   */
  closeLength(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let size = 1;
    for (let n = len; n > 0x7f; n >>>= 7) size++;
    this.ensure(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    let n = len;
    let p = at;
    while (n > 0x7f) {
      this.buf[p++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[p] = n;
  }

  /**
   * Attributes as repeated `KeyValue` records of `field` (9 in a span, 3 in an event, 1 in a
   * resource), each `{key, value}`.
   */
  keyValues(
    field: number,
    attributes: Readonly<Record<string, AttributeValue>>,
    numbers: NumberEncoding,
  ): void {
    for (const key in attributes) {
      this.tag(field, WIRE.LEN);
      this.keyValue(key, attributes[key]!, numbers);
    }
  }

  /** One `KeyValue` message, length first (no tag). */
  keyValue(key: string, value: AttributeValue, numbers: NumberEncoding): void {
    const at = this.openLength();
    const encoded = this.keys?.of(key);
    if (encoded) {
      // One native copy: a byte loop here cost about 1,970 instructions a KeyValue, this 1,140.
      this.ensure(encoded.length);
      this.buf.set(encoded, this.pos);
      this.pos += encoded.length;
    } else {
      this.tag(1, WIRE.LEN);
      this.string(key);
      this.tag(2, WIRE.LEN);
    }
    this.anyValue(value, numbers);
    this.closeLength(at);
  }

  /** One `AnyValue` message, length first (no tag); `null` is an `AnyValue` with nothing set. */
  anyValue(v: AttributeValue, numbers: NumberEncoding): void {
    if (typeof v === 'string' && this.strings !== undefined) {
      // One native copy of a kept string's value: encoded, a name of 10 characters was about
      // 700 instructions.
      const encoded = this.strings.of(v);
      if (encoded !== undefined) {
        this.ensure(encoded.length);
        this.buf.set(encoded, this.pos);
        this.pos += encoded.length;
        return;
      }
    }
    const at = this.openLength();
    if (typeof v === 'string') {
      this.tag(1, WIRE.LEN);
      this.string(v);
    } else if (typeof v === 'number') {
      if (numbers === 'int-or-double' && Number.isSafeInteger(v)) {
        this.tag(3, WIRE.VARINT);
        this.int64(v);
      } else {
        this.tag(4, WIRE.FIXED64);
        this.double(v);
      }
    } else if (typeof v === 'boolean') {
      this.tag(2, WIRE.VARINT);
      this.byte(v ? 1 : 0);
    } else if (Array.isArray(v)) {
      this.tag(5, WIRE.LEN);
      const list = this.openLength();
      for (const item of v) {
        this.tag(1, WIRE.LEN);
        this.anyValue(item, numbers);
      }
      this.closeLength(list);
    } else if (v !== null) {
      this.tag(6, WIRE.LEN);
      const list = this.openLength();
      for (const key in v) {
        this.tag(1, WIRE.LEN);
        this.keyValue(key, v[key]!, numbers);
      }
      this.closeLength(list);
    }
    this.closeLength(at);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }
}

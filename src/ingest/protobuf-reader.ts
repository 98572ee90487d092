import { bufferView } from './buffer-view.js';
import { recurringString } from './recurring-string.js';
import { WIRE } from '../protobuf/wire-type.js';

// Wire types, by the names the code reads them with.
const { VARINT, FIXED64, LEN, FIXED32 } = WIRE;

/** Character codes of the hex digits, by value. */
const HEX = Array.from('0123456789abcdef', c => c.charCodeAt(0));

/**
 * Eight bytes (a span id) as 16 lower-case hex digits. One `String.fromCharCode` call builds the
 * string in place: measured at 25–32 ns against 67–109 ns for `buf.toString('hex', …)`, whose cost
 * is mostly the call into the runtime. (For 16 bytes, two halves joined cost more than that call.)
 */
function hex8(buf: Buffer, at: number): string {
  const b0 = buf[at]!;
  const b1 = buf[at + 1]!;
  const b2 = buf[at + 2]!;
  const b3 = buf[at + 3]!;
  const b4 = buf[at + 4]!;
  const b5 = buf[at + 5]!;
  const b6 = buf[at + 6]!;
  const b7 = buf[at + 7]!;
  return String.fromCharCode(
    HEX[b0 >> 4]!,
    HEX[b0 & 15]!,
    HEX[b1 >> 4]!,
    HEX[b1 & 15]!,
    HEX[b2 >> 4]!,
    HEX[b2 & 15]!,
    HEX[b3 >> 4]!,
    HEX[b3 & 15]!,
    HEX[b4 >> 4]!,
    HEX[b4 & 15]!,
    HEX[b5 >> 4]!,
    HEX[b5 & 15]!,
    HEX[b6 >> 4]!,
    HEX[b6 & 15]!,
    HEX[b7 >> 4]!,
    HEX[b7 & 15]!,
  );
}

/** A malformed span inside an otherwise readable request: the span is rejected alone. */
export class SpanReject extends Error {}

/**
 * A cursor over one protobuf message's bytes, for the OTLP decoder and the span batch codec. Every read checks bounds; a
 * framing violation throws an `Error` (the decoder turns it into `SS_TRACE_INPUT_INVALID`); an id
 * of the wrong length throws {@link SpanReject}.
 */
export class ProtobufReader {
  pos = 0;
  // Per id slot (see `id`): where the last id's bytes are, and its hex. Scalars, not arrays: a
  // reader is made per request and per attributes read, and must cost little to make.
  private traceIdAt = -1;
  private traceId = '';
  private parentIdAt = -1;
  private parentId = '';
  /**
   * Nested items this reader may still walk (see {@link ProtobufReader.item}); unbounded unless
   * set. The OTLP decoder sets it from `DecodeLimits.maxItems`.
   */
  itemsLeft = Infinity;
  /** `end`: where the message ends (the buffer's end unless given); nothing past it is read. */
  constructor(
    public buf: Buffer,
    public end = buf.length,
  ) {}

  /**
   * Points this reader at `buf[pos, end)`, for a reader kept and reused rather than made per use
   * (reading a span's attributes). Clears the id slots (their offsets were in the old buffer) and
   * the item budget.
   */
  reset(buf: Buffer, pos: number, end: number): void {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
    this.traceIdAt = -1;
    this.traceId = '';
    this.parentIdAt = -1;
    this.parentId = '';
    this.itemsLeft = Infinity;
  }

  varint32(): number {
    // One byte: most tags and short lengths (kept small, so it inlines where it is called).
    const pos = this.pos;
    if (pos < this.end) {
      const b = this.buf[pos]!;
      if (b < 0x80) {
        this.pos = pos + 1;
        return b;
      }
    }
    return this.longVarint32();
  }

  private longVarint32(): number {
    // Tags, enums, lengths and bools fit in 32 bits; read up to 10 bytes so a valid 64-bit
    // varint (a negative enum is sign-extended) is consumed whole.
    const buf = this.buf;
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('varint runs past the end');
      const b = buf[this.pos++]!;
      if (shift < 32) result |= (b & 0x7f) << shift;
      if (b < 0x80) return result >>> 0;
      shift += 7;
    }
    throw new Error('varint longer than 10 bytes');
  }

  int64(): number | string {
    // Up to 7 bytes (49 bits, within a double's exact integers): a number, without BigInts. A
    // negative value takes 10 bytes and goes the long way, as does anything larger.
    const buf = this.buf;
    let pos = this.pos;
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 7 && pos < this.end; i++) {
      const b = buf[pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.pos = pos;
        return result;
      }
      scale *= 128;
    }
    return this.longInt64();
  }

  private longInt64(): number | string {
    const buf = this.buf;
    let lo = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('varint runs past the end');
      const b = buf[this.pos++]!;
      lo |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        const n = BigInt.asIntN(64, lo);
        const asNumber = Number(n);
        return Number.isSafeInteger(asNumber) ? asNumber : n.toString();
      }
      shift += 7n;
    }
    throw new Error('varint longer than 10 bytes');
  }

  /** Counts one nested item (a message or a value in a list) against {@link ProtobufReader.itemsLeft}. */
  item(): void {
    if (--this.itemsLeft < 0) this.itemsExceeded();
  }

  /**
   * Called when {@link ProtobufReader.item} passes the budget; throws. A method, not a field, so
   * that making a reader (one per span whose attributes are read) allocates nothing more; the
   * OTLP decoder replaces it on its own reader with the error that names the limit.
   */
  itemsExceeded(): never {
    throw new Error('too many items');
  }

  /**
   * Reads a length and returns where the bytes it counts end. The length is read whole, not cut
   * to 32 bits as a tag or an enum is (`varint32`): a length of 2^32 + 4 is past any message, and
   * is refused as one, where cut it would read as 4 and frame the bytes otherwise than every other
   * decoder does.
   */
  lenEnd(): number {
    const pos = this.pos;
    let len: number;
    if (pos < this.end && this.buf[pos]! < 0x80) {
      len = this.buf[pos]!;
      this.pos = pos + 1;
    } else {
      // Longer, read whole as the int64 it is: a number, or digits past 2^53; negative, or past
      // the message, it is past the end either way.
      const whole = this.int64();
      len = typeof whole === 'number' ? whole : Number(whole);
    }
    const end = this.pos + len;
    if (len < 0 || end > this.end)
      throw new Error(`length ${len} runs past the end of the message`);
    return end;
  }

  /**
   * Throws `reject` unless the reader stands at `end`, where the message it walked ends: else its
   * last field ran past that end (a length or a fixed-width value reaching into what follows).
   * Every walk of a nested message ends with this, so that what the walk read is what a reader
   * that skips the message by its length passes over: the span's attribute range is read again
   * later, skipping the fields between its records by their lengths, and bytes a status or an
   * event ran into would otherwise be read then as records no check saw.
   */
  endsAt(
    end: number,
    what: string,
    reject: new (message: string) => Error = Error,
    holder = 'it',
  ): void {
    if (this.pos !== end)
      throw new reject(`${what}: a field runs ${this.pos - end} bytes past the end of ${holder}`);
  }

  string(): string {
    const end = this.lenEnd();
    const s = this.buf.toString('utf8', this.pos, end);
    this.pos = end;
    return s;
  }

  /**
   * A string that repeats across spans (an attribute key, a span or scope name, a short value):
   * read through {@link recurringString}'s cache, so the common case decodes nothing and hands
   * back the same string, which V8 has already made a property key. Long strings decode as usual.
   */
  recurring(): string {
    const end = this.lenEnd();
    const s = recurringString(this.buf, this.pos, end);
    this.pos = end;
    return s;
  }

  base64(): string {
    const end = this.lenEnd();
    const s = this.buf.toString('base64', this.pos, end);
    this.pos = end;
    return s;
  }

  /**
   * A trace or span id as lower-case hex; `''` for an empty or all-zero id (a root's parent, in
   * some SDKs). An id that repeats from span to span (a trace id, as the spans of one trace
   * usually arrive together; a parent id) is read with a `slot` (0 trace, 1 parent): when its bytes
   * equal the last id read in that slot, that id's string is handed back without decoding.
   * `bytes` is a multiple of 4 (8 or 16).
   */
  id(bytes: number, name: string, slot?: 0 | 1): string {
    const end = this.lenEnd();
    const start = this.pos;
    const len = end - start;
    this.pos = end;
    if (len !== bytes) {
      if (len === 0) return '';
      throw new SpanReject(`${name}: expected ${bytes} bytes, got ${len}`);
    }
    const buf = this.buf;
    // Ids are 8 or 16 bytes: compared and checked four bytes at a time, through the decoders' view
    // of the buffer (the request's body, let go of when its decoding ends).
    const view = bufferView(buf);
    const prev = slot === undefined ? -1 : slot === 0 ? this.traceIdAt : this.parentIdAt;
    if (prev >= 0) {
      let same = true;
      for (let i = 0; i < len; i += 4)
        if (view.getInt32(prev + i) !== view.getInt32(start + i)) {
          same = false;
          break;
        }
      if (same) return slot === 0 ? this.traceId : this.parentId;
    }
    let zero = true;
    for (let i = start; i < end; i += 4)
      if (view.getInt32(i) !== 0) {
        zero = false;
        break;
      }
    if (zero) return '';
    // A 16-byte id as two halves would be a cons string, flattened again when first hashed.
    const hex = len === 8 ? hex8(buf, start) : buf.toString('hex', start, end);
    if (slot === undefined) return hex;
    if (slot === 0) {
      this.traceIdAt = start;
      this.traceId = hex;
    } else {
      this.parentIdAt = start;
      this.parentId = hex;
    }
    return hex;
  }

  fixed64(): bigint {
    const pos = this.pos;
    if (pos + 8 > this.end) throw new Error('fixed64 runs past the end');
    this.pos = pos + 8;
    // Straight from the decoders' view of the buffer (see `id`), not copied through
    // `readU64LE`'s scratch bytes first.
    return bufferView(this.buf).getBigUint64(pos, true);
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new Error('double runs past the end');
    const v = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  skip(tag: number): void {
    if (tag >>> 3 === 0) throw new Error('field number 0 is not valid protobuf');
    switch (tag & 7) {
      case VARINT:
        this.varint32();
        return;
      case FIXED64:
        this.pos += 8;
        break;
      case LEN:
        this.pos = this.lenEnd();
        return;
      case FIXED32:
        this.pos += 4;
        break;
      default:
        throw new Error(`unsupported wire type ${tag & 7} for field ${tag >>> 3}`);
    }
    if (this.pos > this.end) throw new Error('field runs past the end');
  }
}

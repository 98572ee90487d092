/** Wire types (protobuf encoding spec). */
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;

/** A malformed span inside an otherwise readable request: the span is rejected alone. */
export class SpanReject extends Error {}

/**
 * A cursor over one protobuf message's bytes, for the OTLP decoder. Every read checks bounds; a
 * framing violation throws an `Error` (the decoder turns it into `SS_TRACE_INPUT_INVALID`); an id
 * of the wrong length throws {@link SpanReject}.
 */
export class ProtobufReader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  varint32(): number {
    // Tags, enums, lengths and bools fit in 32 bits; read up to 10 bytes so a valid 64-bit
    // varint (a negative enum is sign-extended) is consumed whole.
    const buf = this.buf;
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw new Error('varint runs past the end');
      const b = buf[this.pos++]!;
      if (shift < 32) result |= (b & 0x7f) << shift;
      if (b < 0x80) return result >>> 0;
      shift += 7;
    }
    throw new Error('varint longer than 10 bytes');
  }

  int64(): number | string {
    const buf = this.buf;
    let lo = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= buf.length) throw new Error('varint runs past the end');
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

  lenEnd(): number {
    const len = this.varint32();
    const end = this.pos + len;
    if (end > this.buf.length) throw new Error(`length ${len} runs past the end of the message`);
    return end;
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

  id(bytes: number, name: string): string {
    const end = this.lenEnd();
    const len = end - this.pos;
    if (len !== bytes && len !== 0) {
      this.pos = end;
      throw new SpanReject(`${name}: expected ${bytes} bytes, got ${len}`);
    }
    // An all-zero id (a root's parent, in some SDKs) means none.
    let zero = true;
    for (let i = this.pos; i < end; i++)
      if (this.buf[i] !== 0) {
        zero = false;
        break;
      }
    const hex = zero ? '' : this.buf.toString('hex', this.pos, end);
    this.pos = end;
    return hex;
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.buf.length) throw new Error('fixed64 runs past the end');
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.buf.length) throw new Error('double runs past the end');
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
    if (this.pos > this.buf.length) throw new Error('field runs past the end');
  }
}

// Strings up to this many bytes go through the cache; longer ones (JSON payloads, messages) rarely
// repeat and cost more to compare than to decode.
const RECURRING_MAX_BYTES = 48;
const CACHE_SLOTS = 4096;
const cachedBytes: Array<Uint8Array | undefined> = new Array<Uint8Array | undefined>(CACHE_SLOTS);
const cachedStrings: string[] = new Array<string>(CACHE_SLOTS);

/**
 * The UTF-8 string of `buf[start, end)`, from a fixed-size cache keyed by an FNV-1a hash of the
 * bytes and checked byte for byte (a collision only replaces the slot). Attribute keys and span
 * names repeat in nearly every span of a request, and decoding them was the largest single cost of
 * `decodeOtlpProtobuf`. Bounded memory: 4096 strings of at most 48 bytes.
 */
export function recurringString(buf: Buffer, start: number, end: number): string {
  const len = end - start;
  if (len > RECURRING_MAX_BYTES || len === 0) return buf.toString('utf8', start, end);
  let h = 0x811c9dc5 ^ len;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  const slot = (h >>> 0) & (CACHE_SLOTS - 1);
  const bytes = cachedBytes[slot];
  if (bytes !== undefined && bytes.length === len) {
    let same = true;
    for (let i = 0; i < len; i++)
      if (bytes[i] !== buf[start + i]) {
        same = false;
        break;
      }
    if (same) return cachedStrings[slot]!;
  }
  const s = buf.toString('utf8', start, end);
  cachedBytes[slot] = Uint8Array.prototype.slice.call(buf, start, end);
  cachedStrings[slot] = s;
  return s;
}

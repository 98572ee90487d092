import { recurringString } from './recurring-string.js';

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

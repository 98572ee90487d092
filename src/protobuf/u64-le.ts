// One 8-byte scratch and a DataView on it, shared by every fixed64 read and write (a timestamp
// each): the bytes are copied through it, so a value costs one BigInt read and none written.
// `Buffer`'s `readBigUInt64LE` builds four (two halves, a shift, a sum; about 100 heap bytes) and
// `writeBigUInt64LE` three (`&` and `>>`); a `BigUint64Array` element read makes one of about 40
// bytes against about 24 from the DataView (Node 20).
const SCRATCH = new Uint8Array(8);
const VIEW = new DataView(SCRATCH.buffer);
const MAX_U64 = 0xffffffffffffffffn;

/** The unsigned 64-bit little-endian integer at `buf[pos, pos + 8)`; the caller checks the range. */
export function readU64LE(buf: Uint8Array, pos: number): bigint {
  for (let i = 0; i < 8; i++) SCRATCH[i] = buf[pos + i]!;
  return VIEW.getBigUint64(0, true);
}

/**
 * Writes `n` at `buf[pos, pos + 8)`, unsigned 64-bit little-endian; the caller makes the room. A
 * value outside `[0, 2^64)` throws the `RangeError` `writeBigUInt64LE` throws (a DataView would
 * wrap it silently).
 */
export function writeU64LE(buf: Buffer, pos: number, n: bigint): void {
  if (n < 0n || n > MAX_U64) {
    buf.writeBigUInt64LE(n, pos);
    return;
  }
  VIEW.setBigUint64(0, n, true);
  for (let i = 0; i < 8; i++) buf[pos + i] = SCRATCH[i]!;
}

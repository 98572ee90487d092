/**
 * Protobuf bytes written by hand, for tests of what no SDK writes (malformed, hostile or unusual
 * records): independent of the encoder under test (`src/protobuf/protobuf-writer.ts`).
 */

/** A protobuf varint (of at most 32 bits). */
export function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/** A length-delimited field: its tag, its length and `body`. */
export function field(number: number, body: Uint8Array): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(body.length), body]);
}

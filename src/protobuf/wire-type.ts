/**
 * Protobuf wire types (the encoding spec's numbering): what follows a field's tag. Shared by the
 * OTLP decoders, the span batch codec and the evaluation span encoder.
 */
export const WIRE = {
  /** A base-128 varint: ints, enums, bools. */
  VARINT: 0,
  /** Eight bytes, little-endian: fixed64, double. */
  FIXED64: 1,
  /** A varint byte length, then that many bytes: strings, bytes, messages, packed lists. */
  LEN: 2,
  /** Four bytes, little-endian: fixed32, float. */
  FIXED32: 5,
} as const;

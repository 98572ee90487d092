/**
 * An attribute value after decoding `AnyValue`. Byte values become base64 strings. What a span
 * digest holds (`src/ingest/span-digest.ts` re-exports it) and what `ProtobufWriter` encodes:
 * defined here, below both, so the wire codec imports nothing from the stages above it.
 */
export type AttributeValue =
  string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

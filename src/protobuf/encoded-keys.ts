import { ProtobufWriter } from './protobuf-writer.js';
import { WIRE } from './wire-type.js';

/**
 * The encoded start of a `KeyValue` for each key of a small set, for `ProtobufWriter.keyValue` to
 * copy rather than encode again: the key field (tag, length, UTF-8 bytes) and the value field's
 * tag, as the writer writes them. Made on a key's first use. At most `maxKeys` keys of at most
 * {@link EncodedKeys.MAX_KEY_CHARS} UTF-16 units are kept, the first ones seen; any other key gets
 * `undefined` and is encoded each time, so keys from outside (a trace's) keep the set bounded:
 * at most `maxKeys` × 196 bytes.
 */
export class EncodedKeys {
  static readonly MAX_KEY_CHARS = 64;
  private readonly kept = new Map<string, Uint8Array>();

  constructor(private readonly maxKeys = 256) {}

  /** The key's encoded start, or `undefined` when it is not kept (and will not be). */
  of(key: string): Uint8Array | undefined {
    const kept = this.kept.get(key);
    if (kept !== undefined || this.kept.size >= this.maxKeys) return kept;
    if (key.length > EncodedKeys.MAX_KEY_CHARS) return undefined;
    const w = new ProtobufWriter(key.length * 3 + 4); // two tags, a length of at most 2 bytes
    w.tag(1, WIRE.LEN);
    w.string(key);
    w.tag(2, WIRE.LEN);
    const encoded = Uint8Array.from(w.done());
    this.kept.set(key, encoded);
    return encoded;
  }

  /** Keys kept. */
  get size(): number {
    return this.kept.size;
  }
}

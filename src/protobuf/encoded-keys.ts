import { WIRE } from './wire-type.js';

/** The `KeyValue` fields around a key: `key` (1) and `value` (2), both length-delimited. */
const KEY_TAG = (1 << 3) | WIRE.LEN;
const VALUE_TAG = (2 << 3) | WIRE.LEN;

/**
 * The encoded start of a `KeyValue` for each key of a small set, for `ProtobufWriter.keyValue` to
 * copy rather than encode again: the key field (tag, length, UTF-8 bytes) and the value field's
 * tag. Made on a key's first use. At most `maxKeys` keys of at most
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
    const n = Buffer.byteLength(key, 'utf8'); // at most 192: a length of two varint bytes
    const head = n < 0x80 ? 2 : 3;
    const encoded = new Uint8Array(head + n + 1);
    encoded[0] = KEY_TAG;
    if (n < 0x80) encoded[1] = n;
    else {
      encoded[1] = (n & 0x7f) | 0x80;
      encoded[2] = n >>> 7;
    }
    Buffer.from(encoded.buffer).write(key, head, 'utf8');
    encoded[head + n] = VALUE_TAG;
    this.kept.set(key, encoded);
    return encoded;
  }

  /** Keys kept. */
  get size(): number {
    return this.kept.size;
  }
}

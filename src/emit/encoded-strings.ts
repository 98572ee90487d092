import { flatCopy } from '../ingest/flat-copy.js';
import { ProtobufWriter, type KeyEncodings } from '../protobuf/protobuf-writer.js';

/**
 * The encoded `AnyValue` (length first, as `ProtobufWriter.anyValue` writes it) of each string
 * value of a small set, for the writer to copy rather than encode again: the names a process
 * writes again and again (scorers, tools, agents, services, labels). Made on a string's first use.
 * At most `maxStrings` strings of at most {@link EncodedStrings.MAX_CHARS} UTF-16 units are kept,
 * the first ones seen; any other gets `undefined` and is encoded each time, so strings from
 * outside (a trace's) keep the set bounded. Each is keyed on a copy (`flatCopy`), never on the
 * caller's string, which may be a view of a much larger one. An encoded value is at most 195
 * bytes (64 units of 3 UTF-8 bytes, its tag and lengths); 512 strings of 64 '€' with their
 * two-byte keys, typed arrays and the map took 275 to 320 KiB of heap (measured after a full
 * collection; 64 ASCII characters, 180 KiB).
 */
export class EncodedStrings implements KeyEncodings {
  static readonly MAX_CHARS = 64;
  private readonly kept = new Map<string, Uint8Array>();

  constructor(private readonly maxStrings = 512) {}

  /** The string's encoded `AnyValue`, or `undefined` when it is not kept (and will not be). */
  of(s: string): Uint8Array | undefined {
    if (s.length > EncodedStrings.MAX_CHARS) return undefined;
    const kept = this.kept.get(s);
    if (kept !== undefined || this.kept.size >= this.maxStrings) return kept;
    const w = new ProtobufWriter(s.length * 3 + 8); // a length of at most 2 bytes, a tag, a length
    w.anyValue(s, 'double');
    const encoded = Uint8Array.from(w.done());
    this.kept.set(flatCopy(s), encoded);
    return encoded;
  }

  /** Strings kept. */
  get size(): number {
    return this.kept.size;
  }
}

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
 * `decodeOtlpProtobuf` (and of reading span batches back from Redis). Bounded memory: 4096 strings of at most 48 bytes.
 */
export function recurringString(buf: Buffer, start: number, end: number): string {
  const len = end - start;
  if (len === 0) return '';
  if (len > RECURRING_MAX_BYTES) return buf.toString('utf8', start, end);
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

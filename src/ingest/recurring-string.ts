// Strings up to this many bytes go through the cache; longer ones (JSON payloads, messages) rarely
// repeat and cost more to compare than to decode.
const RECURRING_MAX_BYTES = 48;
const CACHE_SLOTS = 4096;
// Each slot's bytes in one arena (RECURRING_MAX_BYTES a slot) and its length (0: empty), so a miss
// allocates its string only: a typed array per cached string cost about 150 heap bytes a miss, and
// values that never repeat (call ids) miss every time.
const cachedBytes = new Uint8Array(CACHE_SLOTS * RECURRING_MAX_BYTES);
const cachedLengths = new Uint8Array(CACHE_SLOTS);
const cachedStrings: string[] = new Array<string>(CACHE_SLOTS).fill('');

/**
 * The UTF-8 string of `buf[start, end)`, from a fixed-size cache keyed by a hash of the length
 * and at most eight of the bytes, and checked byte for byte (a collision only replaces the slot).
 * Attribute keys and span names repeat in nearly every span of a request, and decoding them was
 * the largest single cost of `decodeOtlpProtobuf` (and of reading span batches back from Redis).
 * Bounded memory: 4096 strings of at most 48 bytes, and their bytes in one 192 kB arena; a miss
 * allocates only its string. Bounded work: a lookup reads at most eight bytes for the hash and
 * compares at most 48; strings built to share a slot cost misses, never more.
 */
export function recurringString(buf: Buffer, start: number, end: number): string {
  const len = end - start;
  if (len === 0) return '';
  if (len > RECURRING_MAX_BYTES) return buf.toString('utf8', start, end);
  // The slot from the length and, past 7 bytes, eight of the bytes (the first two, two in the
  // middle and the last four: where keys and ids of one length tell each other apart), not all: the
  // byte-for-byte check below decides a hit, so a weaker hash costs only a slot shared more often.
  // Hashing every byte cost as much as that check (about 8 instructions a byte).
  let h = Math.imul(0x811c9dc5 ^ len, 0x01000193);
  if (len < 8) for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  else {
    const mid = start + (len >>> 1);
    h = Math.imul(h ^ buf[start]! ^ (buf[start + 1]! << 8), 0x01000193);
    h = Math.imul(h ^ buf[mid - 1]! ^ (buf[mid]! << 8), 0x01000193);
    h = Math.imul(h ^ buf[end - 4]! ^ (buf[end - 3]! << 8), 0x01000193);
    h = Math.imul(h ^ buf[end - 2]! ^ (buf[end - 1]! << 8), 0x01000193);
  }
  const slot = (h ^ (h >>> 15)) & (CACHE_SLOTS - 1);
  const at = slot * RECURRING_MAX_BYTES;
  if (cachedLengths[slot] === len) {
    let same = true;
    for (let i = 0; i < len; i++)
      if (cachedBytes[at + i] !== buf[start + i]) {
        same = false;
        break;
      }
    if (same) return cachedStrings[slot]!;
  }
  const s = buf.toString('utf8', start, end);
  for (let i = 0; i < len; i++) cachedBytes[at + i] = buf[start + i]!;
  cachedLengths[slot] = len;
  cachedStrings[slot] = s;
  return s;
}

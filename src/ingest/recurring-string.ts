import { bufferView } from './buffer-view.js';

// Strings up to this many bytes go through the cache; longer ones (JSON payloads, messages) rarely
// repeat and cost more to compare than to decode.
const RECURRING_MAX_BYTES = 48;
const SLOT_BITS = 12;
const CACHE_SLOTS = 1 << SLOT_BITS;
/** The multiplier of the hash: 2^32 over the golden ratio, odd (Knuth's multiplicative hashing). */
const HASH_MULTIPLIER = 0x9e3779b1;
// Each slot's bytes in one arena, as little-endian words (RECURRING_MAX_BYTES a slot, the last
// word of a string zero-padded), and its length (0: empty), so a miss allocates its string only: a
// typed array per cached string cost about 150 heap bytes a miss, and values that never repeat
// (call ids) miss every time.
const WORDS_PER_SLOT = RECURRING_MAX_BYTES / 4;
const cachedWords = new Int32Array(CACHE_SLOTS * WORDS_PER_SLOT);
const cachedLengths = new Uint8Array(CACHE_SLOTS);
const cachedStrings: string[] = new Array<string>(CACHE_SLOTS).fill('');
/** The words of the string being looked up, read once for its hash and its check. */
const words = new Int32Array(WORDS_PER_SLOT);

/**
 * The UTF-8 string of `buf[start, end)`, from a fixed-size cache keyed by a multiplicative hash of
 * its bytes, four at a time, and checked word for word (a collision only replaces the slot).
 * Attribute keys and span names repeat in nearly every span of a request, and decoding them was
 * the largest single cost of `decodeOtlpProtobuf` (and of reading span batches back from Redis).
 * Bounded memory: 4096 strings of at most 48 bytes, and their bytes in one 192 kB arena; a miss
 * allocates only its string. The bytes are read through `bufferView`. Bounded work: a lookup
 * hashes and compares at most 48 bytes; strings built to share a slot cost misses, never more.
 */
export function recurringString(buf: Buffer, start: number, end: number): string {
  const len = end - start;
  if (len === 0) return '';
  if (len > RECURRING_MAX_BYTES) return buf.toString('utf8', start, end);
  const view = bufferView(buf);
  // Every byte hashed (keys of one length that differ in one digit, such as
  // `gen_ai.prompt.3.content`, must not share a slot), a word at a time, and the words kept for
  // the check: byte by byte, FNV-1a's multiply a byte and a check of two loads a byte cost about
  // 17 instructions a byte. The slot is the product's top bits, which every bit of every word
  // reaches (a multiply carries upwards only).
  // The words through a DataView: about 11 instructions a word against 45 for four byte reads
  // (a 19-byte key: 527 instructions a lookup read byte by byte, 325 by words).
  let h = 0x811c9dc5 ^ len;
  let n = 0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    const word = view.getInt32(i, true);
    words[n++] = word;
    h = Math.imul(h ^ word, HASH_MULTIPLIER);
  }
  if (i < end) {
    let word = 0;
    for (let shift = 0; i < end; i++, shift += 8) word |= view.getUint8(i) << shift;
    words[n++] = word;
    h = Math.imul(h ^ word, HASH_MULTIPLIER);
  }
  const slot = h >>> (32 - SLOT_BITS);
  const at = slot * WORDS_PER_SLOT;
  if (cachedLengths[slot] === len) {
    let k = 0;
    while (k < n && cachedWords[at + k] === words[k]) k++;
    if (k === n) return cachedStrings[slot]!;
  }
  misses++;
  const s = buf.toString('utf8', start, end);
  for (let k = 0; k < n; k++) cachedWords[at + k] = words[k]!;
  cachedLengths[slot] = len;
  cachedStrings[slot] = s;
  return s;
}

let misses = 0;

/** Lookups of {@link recurringString} that decoded their string (a miss), since the process began. */
export function recurringStringMisses(): number {
  return misses;
}

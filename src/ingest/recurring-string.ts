import { bufferView } from './buffer-view.js';
import { isUnreadKeyBytes } from './unread-attributes.js';

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
/**
 * Per slot, whether its string, as an attribute key, is in an unread family: 0 not asked yet, 1
 * no, 2 yes (see {@link recurringKeyUnlessUnread}). A slot's string replaced, it is 0 again.
 */
const cachedUnread = new Uint8Array(CACHE_SLOTS);
/** The slot of the last {@link recurringString} lookup (-1 when it went past the cache). */
let lastSlot = -1;
/**
 * Per slot, the slot of the lookup that followed its last lookup: keys and names come in the
 * same order span after span, so the slot after the last one is guessed from it and confirmed by
 * its length and bytes, without hashing. A link is a guess only: one to a slot since emptied or
 * taken by another string (or 0, not yet known) fails its check and the lookup hashes. 8 kB.
 */
const nextSlots = new Uint16Array(CACHE_SLOTS);
/** The slot of the last lookup that went through the cache (lookups past it are passed over). */
let guessFrom = 0;

/**
 * The UTF-8 string of `buf[start, end)`, from a fixed-size cache keyed by a multiplicative hash of
 * its bytes, four at a time, and checked word for word (a collision only replaces the slot).
 * Attribute keys and span names repeat in nearly every span of a request, and decoding them was
 * the largest single cost of `decodeOtlpProtobuf` (and of reading span batches back from Redis).
 * Bounded memory: 4096 strings of at most 48 bytes, and their bytes in one 192 kB arena; a miss
 * allocates only its string. The bytes are read through `bufferView`. Bounded work: a lookup
 * first compares its bytes with those of the slot that followed the last lookup's slot last time
 * (keys and names come in one order span after span: in the bench three lookups in four are found
 * so, unhashed), then hashes and compares again, at most 48 bytes each; strings built to share a
 * slot or to defeat the guess cost misses and one compare more, never more.
 */
export function recurringString(buf: Buffer, start: number, end: number): string {
  const len = end - start;
  lastSlot = -1;
  if (len === 0) return '';
  if (len > RECURRING_MAX_BYTES) return buf.toString('utf8', start, end);
  const view = bufferView(buf);
  const whole = (len >>> 2) << 2; // bytes in whole words
  // The last 1–3 bytes as one word, zero-padded: read whole and masked where the buffer holds
  // four bytes from there (nearly always: a key is followed by its value), else byte by byte.
  const rest = len - whole;
  let tail = 0;
  if (rest !== 0) {
    let i = start + whole;
    if (i + 4 <= buf.length) tail = view.getInt32(i, true) & TAIL_MASKS[rest]!;
    else for (let shift = 0; i < end; i++, shift += 8) tail |= view.getUint8(i) << shift;
  }
  // The slot that followed the last lookup's slot last time, taken when it holds these bytes:
  // a wrong guess costs its length check, or a compare of at most 48 bytes, then the hash.
  const from = guessFrom;
  const guess = nextSlots[from]!;
  if (cachedLengths[guess] === len && holds(view, start, whole, guess, rest, tail)) {
    lastSlot = guessFrom = guess;
    return cachedStrings[guess]!;
  }
  // Every byte hashed (keys of one length that differ in one digit, such as
  // `gen_ai.prompt.3.content`, must not share a slot), a word at a time: byte by byte, FNV-1a's
  // multiply a byte and a check of two loads a byte cost about 17 instructions a byte. The slot
  // is the product's top bits, which every bit of every word reaches (a multiply carries upwards
  // only).
  // The words through a DataView: about 11 instructions a word against 45 for four byte reads
  // (a 19-byte key: 527 instructions a lookup read byte by byte, 325 by words).
  hashed++;
  let h = 0x811c9dc5 ^ len;
  for (let k = 0; k < whole; k += 4)
    h = Math.imul(h ^ view.getInt32(start + k, true), HASH_MULTIPLIER);
  if (rest !== 0) h = Math.imul(h ^ tail, HASH_MULTIPLIER);
  const slot = h >>> (32 - SLOT_BITS);
  nextSlots[from] = slot;
  lastSlot = guessFrom = slot;
  // Checked against the bytes read again: keeping the hash's words in an array to check them
  // cost as much.
  if (cachedLengths[slot] === len && holds(view, start, whole, slot, rest, tail))
    return cachedStrings[slot]!;
  misses++;
  const s = buf.toString('utf8', start, end);
  const at = slot * WORDS_PER_SLOT;
  for (let k = 0; k < whole; k += 4) cachedWords[at + (k >>> 2)] = view.getInt32(start + k, true);
  if (rest !== 0) cachedWords[at + (whole >>> 2)] = tail;
  cachedLengths[slot] = len;
  cachedStrings[slot] = s;
  cachedUnread[slot] = 0;
  return s;
}

/**
 * Whether `slot` holds the bytes at `start` of the viewed buffer, `whole` of them in whole words
 * then `rest` (0–3) in `tail`, zero-padded; its length is the caller's to have checked.
 */
function holds(
  view: DataView,
  start: number,
  whole: number,
  slot: number,
  rest: number,
  tail: number,
): boolean {
  const at = slot * WORDS_PER_SLOT;
  // Two words a step: a step's checks (the view's map and length, the loop's stack check) cost
  // about as much as its word (replayed lookups of the bench: 495 → 471 instructions each).
  let k = 0;
  for (; k + 8 <= whole; k += 8)
    if (
      cachedWords[at + (k >>> 2)] !== view.getInt32(start + k, true) ||
      cachedWords[at + (k >>> 2) + 1] !== view.getInt32(start + k + 4, true)
    )
      return false;
  if (k !== whole && cachedWords[at + (k >>> 2)] !== view.getInt32(start + k, true)) return false;
  return rest === 0 || cachedWords[at + (whole >>> 2)] === tail;
}

/**
 * The attribute key in `buf[start, end)` as {@link recurringString} reads it, or `undefined` when
 * it is in an unread family (`isUnreadKeyBytes`). Whether it is, is asked once per cached key and
 * kept with it: asked of the bytes for every record, it cost about 190 instructions a key, about
 * as much as the lookup itself. A key in an unread family is thus decoded once while cached (then
 * handed back without a copy), never per record; one longer than the cache holds, never.
 */
export function recurringKeyUnlessUnread(
  buf: Buffer,
  start: number,
  end: number,
): string | undefined {
  // Past the cache's length a key is decoded each time it is read: one in an unread family is
  // not decoded at all (a request of 250 `http.` keys of 20,000 characters each decoded 10 MB).
  if (end - start > RECURRING_MAX_BYTES)
    return isUnreadKeyBytes(buf, start, end) ? undefined : buf.toString('utf8', start, end);
  const key = recurringString(buf, start, end);
  const slot = lastSlot;
  if (slot === -1) return isUnreadKeyBytes(buf, start, end) ? undefined : key;
  let unread = cachedUnread[slot]!;
  if (unread === 0) cachedUnread[slot] = unread = isUnreadKeyBytes(buf, start, end) ? 2 : 1;
  return unread === 2 ? undefined : key;
}

/** Masks of the low 0–3 bytes of a word, by their number. */
const TAIL_MASKS = new Int32Array([0, 0xff, 0xffff, 0xffffff]);

let misses = 0;

let hashed = 0;

/**
 * Lookups of {@link recurringString} through the cache that were not the guessed slot's (hashed,
 * then a hit or a miss), since the process began.
 */
export function recurringStringHashed(): number {
  return hashed;
}

/** Lookups of {@link recurringString} that decoded their string (a miss), since the process began. */
export function recurringStringMisses(): number {
  return misses;
}

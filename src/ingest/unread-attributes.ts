import { bufferView } from './buffer-view.js';

/**
 * Attribute families no reader of spanscore reads: what the protobuf path leaves in wire form
 * when spanscore reads a span's attributes for itself ({@link readAttributes}).
 *
 * Each family is a key prefix ending in a dot (`http.`): a key in one is never read by an
 * extractor, a convention's marker, the id or session-end readers, production rules' built-in
 * checks or normalization. Instrumentations record many such attributes on every span (HTTP and
 * network facts, token usage, response ids, SDK and host facts), and decoding them was work and
 * garbage for nothing. The list is a deny list, not a list of the keys read, on purpose: a key no
 * one thought of is decoded, so a convention added later cannot lose an attribute it reads
 * because nobody listed it. test/architecture/unread-attributes.test.ts holds the list to that: no
 * string in the readers' sources falls in a family. Keys that come from configuration (id
 * attributes, rules' `match.attributes`) may fall in one: their readers ask {@link attributesFor},
 * which reads such a key from the whole attributes.
 *
 * A holder a dotted id name is looked for in (`a.b` for `a.b.c`) is a prefix of the name that ends
 * before a dot, so when the holder is in a family, so is the name: {@link attributesFor} given the
 * name answers for its holders too.
 */
export const UNREAD_ATTRIBUTE_FAMILIES: readonly string[] = [
  'ai.settings.',
  'ai.usage.',
  'client.',
  'code.',
  'db.',
  'gen_ai.response.',
  'gen_ai.usage.',
  'host.',
  'http.',
  'llm.token_count.',
  'messaging.',
  'net.',
  'network.',
  'os.',
  'server.',
  'telemetry.',
  'thread.',
  'url.',
  'user_agent.',
];

// The families as bytes, by first byte (most keys are passed by one comparison), each as its
// little-endian words and the bytes past the last whole word: compared four bytes at a time
// through a view of the buffer, a `gen_ai.` key that is in no family took about 400 instructions a
// byte at a time.
interface FamilyBytes {
  length: number;
  words: Int32Array;
  tail: Uint8Array;
}
const FAMILY_BYTES: ReadonlyArray<readonly FamilyBytes[] | undefined> = (() => {
  const byFirst: FamilyBytes[][] = [];
  for (const family of UNREAD_ATTRIBUTE_FAMILIES) {
    const bytes = Buffer.from(family, 'utf8');
    const whole = bytes.length - (bytes.length % 4);
    const words = new Int32Array(whole / 4);
    for (let w = 0; w < words.length; w++) words[w] = bytes.readInt32LE(w * 4);
    (byFirst[bytes[0]!] ??= []).push({
      length: bytes.length,
      words,
      tail: Uint8Array.from(bytes.subarray(whole)),
    });
  }
  return byFirst;
})();

/** Whether the UTF-8 key in `buf[start, end)` is in an unread family, without decoding it. */
export function isUnreadKeyBytes(buf: Uint8Array, start: number, end: number): boolean {
  if (start >= end) return false;
  const families = FAMILY_BYTES[buf[start]!];
  if (families === undefined) return false;
  const view = bufferView(buf);
  for (let f = 0; f < families.length; f++) {
    const family = families[f]!;
    if (end - start <= family.length) continue; // the family's prefix alone is not in it
    const words = family.words;
    let same = true;
    for (let w = 0; w < words.length; w++)
      if (view.getInt32(start + w * 4, true) !== words[w]) {
        same = false;
        break;
      }
    if (!same) continue;
    const tail = family.tail;
    const at = start + words.length * 4;
    for (let i = 0; i < tail.length; i++)
      if (view.getUint8(at + i) !== tail[i]) {
        same = false;
        break;
      }
    if (same) return true;
  }
  return false;
}

// The families by first character (all are ASCII), for the string form.
const FAMILIES_BY_CHAR: ReadonlyArray<readonly string[] | undefined> = (() => {
  const byFirst: string[][] = [];
  for (const family of UNREAD_ATTRIBUTE_FAMILIES)
    (byFirst[family.charCodeAt(0)] ??= []).push(family);
  return byFirst;
})();

/**
 * Whether `key` is in an unread family (as {@link isUnreadKeyBytes} on its UTF-8). Asked per span
 * for each configured id name: most keys are answered by their first character.
 */
export function isUnreadKey(key: string): boolean {
  const families = FAMILIES_BY_CHAR[key.charCodeAt(0)];
  if (families === undefined) return false;
  for (const family of families)
    if (key.length > family.length && key.startsWith(family)) return true;
  return false;
}

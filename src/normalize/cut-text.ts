/** UTF-8 bytes of the ellipsis that ends a cut text. */
const ELLIPSIS_BYTES = 3;

/**
 * `text` if it is at most `maxBytes` bytes in UTF-8; else its longest prefix that fits in
 * `maxBytes` with `…` after it (never splitting a surrogate pair), so the result is at most
 * `maxBytes` bytes either way. Reads at most about `maxBytes` characters of `text`, however long
 * it is. `maxBytes` must be at least 4. Pure.
 */
export function cutText(text: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 bytes (a surrogate pair, two units, is 4).
  if (text.length * 3 <= maxBytes) return text;
  const room = maxBytes - ELLIPSIS_BYTES;
  let bytes = 0;
  let cutAt = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1));
    // A lone surrogate is written as U+FFFD, 3 bytes.
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (cutAt < 0 && bytes + size > room) cutAt = i;
    bytes += size;
    if (bytes > maxBytes) return `${text.slice(0, cutAt)}…`;
    if (pair) i++;
  }
  return text;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

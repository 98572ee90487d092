/**
 * The first `max` UTF-16 units of `text`, never ending in the first half of a surrogate pair (a
 * lone half would be stored as U+FFFD, another text); `text` itself when it is short enough. Pure.
 * The one cut of untrusted text to a bound: resource texts (`resourceText`), tool and agent names
 * (`cutName`), results' texts and lists (`boundedText`), failure signatures (`failureSignature`).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

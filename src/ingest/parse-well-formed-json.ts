/** An escaped surrogate, either half, in JSON text (a backslash before it may make it text). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/g;
/** An escaped low surrogate, as the second half of a pair. */
const LOW_ESCAPE = /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/;
const BACKSLASH = 0x5c;

/**
 * `JSON.parse` of an OTLP/JSON body (the receiver's and the trace files'), every string in it well
 * formed (`wellFormedText`'s rule: a lone surrogate, which only a `\ud800`-style escape can give,
 * becomes U+FFFD). A tool name, argument or any attribute holding one was kept as sent by the
 * memory driver and stored as U+FFFD by the bullmq driver's span batches (UTF-8 in Redis): the same
 * traffic read two ways. A body with no `\u` escape of a surrogate's range (nearly every one) is
 * parsed as it is, after one scan for `\ud`. In one with some (an encoder that escapes all
 * non-ASCII text writes each emoji as an escaped pair), each lone escape is rewritten as `\ufffd`
 * in the text, then it is parsed as it is: the work is a scan of the text, not a second visit of
 * every value parsed. Keys are made well formed too.
 */
export function parseWellFormedJson(text: string): unknown {
  if (!text.includes('\\ud') && !text.includes('\\uD')) return JSON.parse(text);
  let out = '';
  let copied = 0;
  SURROGATE_ESCAPE.lastIndex = 0;
  for (let found = SURROGATE_ESCAPE.exec(text); found; found = SURROGATE_ESCAPE.exec(text)) {
    const at = found.index;
    // After an odd number of backslashes, `\u…` is text after an escaped backslash.
    let before = 0;
    while (at - 1 - before >= 0 && text.charCodeAt(at - 1 - before) === BACKSLASH) before++;
    if (before % 2) continue;
    // A high half followed by a low one is a pair: kept, and its low half not read again.
    if (/[89abAB]/.test(text[at + 3]!) && LOW_ESCAPE.test(text.slice(at + 6, at + 12))) {
      SURROGATE_ESCAPE.lastIndex = at + 12;
      continue;
    }
    out += `${text.slice(copied, at)}\\ufffd`;
    copied = at + 6;
  }
  return JSON.parse(copied ? out + text.slice(copied) : text);
}

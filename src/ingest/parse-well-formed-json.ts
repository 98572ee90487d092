import { wellFormedText } from './well-formed-text.js';

/**
 * `JSON.parse` of an OTLP/JSON body, every string value in it well formed (`wellFormedText`: a
 * lone surrogate, which only a `\ud800`-style escape can give, becomes U+FFFD). A tool name,
 * argument or any attribute holding one was kept as sent by the memory driver and stored as
 * U+FFFD by the bullmq driver's span batches (UTF-8 in Redis): the same traffic read two ways.
 * A body with no `\u` escape of a surrogate's range (nearly every one) is parsed as it is, after
 * one scan for `\ud`; keys are left as sent.
 */
export function parseWellFormedJson(text: string): unknown {
  if (!text.includes('\\ud') && !text.includes('\\uD')) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'string' ? wellFormedText(value) : value,
  );
}

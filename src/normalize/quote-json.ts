import { isRecord } from './attribute-values.js';
import { cutTextBytes } from '../ingest/cut-text.js';

// An array or object being written: its items or keys, and the next one to write.
type Frame =
  | { items: readonly unknown[]; at: number }
  | {
      object: Record<string, unknown>;
      keys: string[];
      at: number;
    };

/**
 * The JSON text of `value` (as `JSON.stringify` writes it), cut to at most `maxBytes` UTF-8 bytes
 * with `…` when longer (see {@link cutTextBytes}), never inside an escape (`\n`, `\u0001`). Reads no more of `value` than fits: a string's
 * first `maxBytes + 1` characters, an array's items one at a time, so a value of megabytes costs
 * what `maxBytes` does (an object's keys are listed whole: a schema's are at most its keyword
 * bound). For JSON data (what `JSON.parse` makes); anything else is written as `null`.
 * Iterative: no input can overflow the stack. Pure.
 */
export function quoteJson(value: unknown, maxBytes: number): string {
  const stack: Frame[] = [];
  let out = '';
  const string = (s: string): string =>
    JSON.stringify(s.length > maxBytes ? s.slice(0, maxBytes + 1) : s);
  // Writes a scalar, or opens an array or object (its contents are written from the stack).
  const open = (v: unknown): void => {
    if (typeof v === 'string') out += string(v);
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'boolean') out += String(v);
    else if (Array.isArray(v)) {
      out += '[';
      stack.push({ items: v, at: 0 });
    } else if (isRecord(v)) {
      out += '{';
      stack.push({ object: v, keys: Object.keys(v), at: 0 });
    } else out += 'null';
  };
  open(value);
  // Every turn writes at least one character: past `maxBytes` characters, it is past the bytes.
  while (stack.length && out.length <= maxBytes) {
    const top = stack[stack.length - 1]!;
    if ('items' in top) {
      if (top.at >= top.items.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (top.at > 0) out += ',';
      open(top.items[top.at++]);
      continue;
    }
    if (top.at >= top.keys.length) {
      out += '}';
      stack.pop();
      continue;
    }
    if (top.at > 0) out += ',';
    const key = top.keys[top.at++]!;
    out += `${string(key)}:`;
    open(top.object[key]);
  }
  const cut = cutTextBytes(out, maxBytes);
  // A cut inside an escape (`\`, `\u00`) ends at the escape's start instead: a backslash in JSON
  // text starts an escape, and one after an even run of them is not itself escaped.
  return cut === out ? cut : `${cut.slice(0, -1).replace(PARTIAL_ESCAPE, '$1')}…`;
}

// The end of a cut JSON text inside an escape: after an even run of backslashes (`$1`), a
// backslash and at most `u` and three hex digits.
const PARTIAL_ESCAPE = /(?<!\\)((?:\\\\)*)\\(?:u[0-9a-fA-F]{0,3})?$/;

import { thrownText } from './thrown-text.js';

/** Keys whose values are never recorded: tokens, passwords, API keys, credentials, cookies. */
export const DEFAULT_REDACTED_KEYS: readonly RegExp[] = [
  /token/i,
  /passw(or)?d/i,
  /secret/i,
  /api[-_]?key/i,
  /authori[sz]ation/i,
  /cookie/i,
  /credential/i,
  /private[-_]?key/i,
  /session[-_]?id/i,
];

/** How arguments and results are turned into an attribute value. */
export interface CaptureOptions {
  /** Longest attribute value, in UTF-16 code units; longer JSON is cut and marked. */
  maxLength: number;
  /** Keys (at any depth) whose values are replaced by `[REDACTED]`. */
  redactKeys: readonly (string | RegExp)[];
}

const MAX_DEPTH = 16;

/**
 * Serializes a captured argument or result for a span attribute: JSON (a string as itself), with
 * values of secret-looking keys replaced by `[REDACTED]`, `toJSON()` honoured, Maps as objects,
 * Sets as arrays, byte arrays as `[N bytes]`, errors as `{ name, message }`, functions and symbols
 * dropped, bigints as strings, circular references and depth past 16 marked, and a part that
 * throws when read (a getter, `toJSON`, a Proxy trap) recorded as `[unserializable: message]` in
 * its place. Never throws.
 *
 * Bounded: the value is walked only until `maxLength` characters are written or
 * `2 × maxLength + 64` values and keys are visited, whichever comes first, so a huge array, a sparse array of length
 * 2³², or a small object that references one child many times at every level (10¹⁶ paths from 16
 * arrays) costs what the kept text costs, not what the whole value would. A cut text ends with
 * `…[N more characters]` for a string (its length is known), `…[cut at N characters]` for JSON.
 */
export function captureValue(value: unknown, options: CaptureOptions): string {
  const max = Math.max(0, Math.floor(options.maxLength));
  if (typeof value === 'string') {
    if (value.length <= max) return value;
    const kept = keepWhole(value, max);
    return `${kept}…[${value.length - kept.length} more characters]`;
  }
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol')
    return 'undefined';
  const writer = new BoundedJson(max, options.redactKeys);
  writer.value(value, 0);
  return writer.text();
}

/** `text` cut to at most `max` code units, never between the two halves of a surrogate pair. */
function keepWhole(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

const dropped = (v: unknown): boolean =>
  v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** A JSON text written a piece at a time, that stops taking pieces past its bounds. */
class BoundedJson {
  readonly #parts: string[] = [];
  #length = 0;
  #steps: number;
  #cut = false;
  readonly #seen = new Set<object>();

  constructor(
    private readonly max: number,
    private readonly redact: readonly (string | RegExp)[],
  ) {
    this.#steps = 2 * max + 64;
  }

  text(): string {
    const json = this.#parts.join('');
    if (!this.#cut) return json;
    const kept = keepWhole(json, Math.min(json.length, this.max));
    return `${kept}…[cut at ${kept.length} characters]`;
  }

  /** Writes `v`'s JSON (`null` for what JSON drops); one step. */
  value(v: unknown, depth: number): void {
    if (this.#cut || --this.#steps < 0) return this.#stop();
    switch (typeof v) {
      case 'string':
        return this.#string(v);
      case 'number':
        return this.#write(Number.isFinite(v) ? String(v) : 'null');
      case 'boolean':
        return this.#write(String(v));
      case 'bigint':
        return this.#string(v.toString());
      case 'object':
        if (v === null) return this.#write('null');
        return this.#object(v, depth);
      default:
        return this.#write('null');
    }
  }

  #object(v: object, depth: number): void {
    if (depth >= MAX_DEPTH) return this.#string('[too deep]');
    if (this.#seen.has(v)) return this.#string('[circular]');
    // Whatever throws inside is replaced, with what was written of it, by one marker.
    const parts = this.#parts.length;
    const length = this.#length;
    this.#seen.add(v);
    try {
      this.#container(v, depth + 1);
    } catch (error) {
      this.#parts.length = parts;
      this.#length = length;
      this.#cut = false;
      this.#string(`[unserializable: ${thrownText(error).message}]`);
    } finally {
      this.#seen.delete(v);
    }
  }

  #container(v: object, depth: number): void {
    if (ArrayBuffer.isView(v)) return this.#string(`[${v.byteLength} bytes]`);
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return this.value(toJSON.call(v, ''), depth);
    if (v instanceof Map) return this.#members(v.keys(), key => v.get(key), depth);
    if (v instanceof Set) return this.#items(v.values(), Infinity, depth);
    if (v instanceof Error) {
      const fields = { name: v.name, message: v.message };
      return this.#members(['name', 'message'], key => fields[key as 'name'], depth);
    }
    if (Array.isArray(v)) return this.#items(indexes(v), v.length, depth);
    return this.#members(
      Object.keys(v),
      key => (v as Record<string, unknown>)[key as string],
      depth,
    );
  }

  /** An array of `values` (at most `length`), each read when its turn comes. */
  #items(values: Iterable<unknown>, length: number, depth: number): void {
    this.#write('[');
    let n = 0;
    for (const item of values) {
      if (this.#cut || n >= length) break;
      if (n++ > 0) this.#write(',');
      this.value(item, depth);
    }
    this.#write(']');
  }

  /**
   * An object of `keys`, each value read by `read` only when its turn comes: a getter that throws
   * marks that value alone.
   */
  #members(keys: Iterable<unknown>, read: (key: unknown) => unknown, depth: number): void {
    this.#write('{');
    let n = 0;
    for (const k of keys) {
      if (this.#cut || --this.#steps < 0) return this.#stop();
      if (typeof k === 'symbol') continue;
      const key = String(k);
      let v: unknown;
      if (this.#redacted(key)) v = '[REDACTED]';
      else
        try {
          v = read(k);
        } catch (error) {
          v = `[unserializable: ${thrownText(error).message}]`;
        }
      if (dropped(v)) continue;
      if (n++ > 0) this.#write(',');
      this.#string(key);
      this.#write(':');
      this.value(v, depth);
    }
    this.#write('}');
  }

  #redacted(key: string): boolean {
    return this.redact.some(r =>
      typeof r === 'string' ? r.toLowerCase() === key.toLowerCase() : r.test(key),
    );
  }

  /** A JSON string of `s`, of no more of it than the text can still take. */
  #string(s: string): void {
    const room = this.max - this.#length + 1;
    this.#write(JSON.stringify(s.length > room ? s.slice(0, Math.max(room, 0)) : s));
  }

  #write(piece: string): void {
    if (this.#cut) return;
    this.#parts.push(piece);
    this.#length += piece.length;
    if (this.#length > this.max) this.#cut = true;
  }

  #stop(): void {
    this.#cut = true;
  }
}

/** An array's elements by index, holes as `undefined`, read one at a time. */
function* indexes(array: readonly unknown[]): Generator<unknown> {
  for (let i = 0; i < array.length; i++) yield array[i];
}

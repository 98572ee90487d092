import { flatCopy } from '../ingest/flat-copy.js';
import { hasOwnKey } from '../normalize/has-own-key.js';

/** Bytes a writer keeps between texts; a longer text's buffer is let go once it is taken. */
const KEPT_BYTES = 64 * 1024;

/**
 * Levels of arrays and objects {@link JsonTextWriter.value} writes itself; past them (a cycle, or
 * data deeper than any record or result) the text is `JSON.stringify`'s (see `text`).
 */
const MAX_DEPTH = 64;

/**
 * Thrown for what the writer leaves to `JSON.stringify` (past {@link MAX_DEPTH}, a `toJSON`, a
 * boxed primitive, a bigint): caught by `text`, which then gives the fallback's text.
 */
const LEFT_TO_STRINGIFY = new Error('JSON text left to JSON.stringify');

/** Characters from which {@link JsonTextWriter.string} tries one native write. */
const NATIVE_FROM_CHARS = 24;
/** What `JSON.stringify` escapes (quote, backslash, control characters), and all past ASCII. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const ESCAPED_OR_NOT_ASCII = /["\\\u0000-\u001f\u0080-\uffff]/;

/**
 * Names ({@link JsonTextWriter.name}) kept encoded, at most {@link MAX_NAMES} of at most
 * {@link MAX_NAME_CHARS} characters, the first ones seen whose JSON text is ASCII (names come
 * from traces: any other is written as a string each time). Keyed on a copy of the name
 * (`flatCopy`), never on the caller's string, which may be a view of a much larger one. Bounded:
 * a name's bytes are at most 386 (64 control characters, 6 bytes each, and quotes), and 512 such
 * names with their keys, typed arrays and the map took 300 to 480 KiB of heap (measured after a
 * full collection). Shared by every writer of the process.
 */
const NAMES = new Map<string, Uint8Array>();
const MAX_NAMES = 512;
const MAX_NAME_CHARS = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HEX = '0123456789abcdef';

/** A key's bytes (`"key":`), without and with the comma before it: see {@link JsonTextWriter.encodedKey}. */
export interface EncodedJsonKey {
  readonly first: Uint8Array;
  readonly next: Uint8Array;
  /** Whether the key is ASCII (the text then is too, if the rest is). */
  readonly ascii: boolean;
}

/**
 * JSON text written into one reusable byte buffer (off the V8 heap), then taken as one flat
 * string: the same text `JSON.stringify` writes, for the compact lines the results stores keep.
 * `JSON.stringify` builds its text in parts that double from 32 characters and joins them as a
 * rope: about three times the text's bytes in V8's heap for a 470-character result (1,465 bytes,
 * 1,577 with a replacer), where this allocates the string alone (counted with
 * `bench/budget-figures.child.ts allocation-memory`). The text is the same: strings escaped as
 * `JSON.stringify` escapes them (lone surrogates as `\udxxx`), numbers as `String` writes them
 * (non-finite ones `null`), an object's own enumerable string keys in their order, `undefined`,
 * functions and symbols left out of objects and `null` in arrays. Anything it does not write itself
 * (a value with `toJSON`, a boxed primitive, a bigint, a cycle, more than 64 levels) makes the
 * whole text `JSON.stringify`'s, errors included. Not reentrant: one text at a time (nothing it
 * writes runs code of its caller's). Holds at most 64 KiB between texts.
 */
export class JsonTextWriter {
  private buf = Buffer.allocUnsafeSlow(KEPT_BYTES);
  private pos = 0;
  private ascii = true;
  private depth = 0;

  /**
   * The text `write` writes of `subject` with this writer, or `fallback`'s (`JSON.stringify` as
   * the caller would call it) when `write` returns false or the writer gives up (see above).
   * Both are called without a closure: `subject` is handed to them.
   */
  text<T>(
    subject: T,
    write: (writer: JsonTextWriter, subject: T) => boolean,
    fallback: (subject: T) => string,
  ): string {
    this.pos = 0;
    this.ascii = true;
    this.depth = 0;
    let written: boolean;
    try {
      written = write(this, subject);
    } catch (error) {
      if (error !== LEFT_TO_STRINGIFY) {
        this.release();
        throw error;
      }
      written = false;
    }
    const text = written ? this.buf.toString(this.ascii ? 'latin1' : 'utf8', 0, this.pos) : null;
    this.release();
    return text ?? fallback(subject);
  }

  /** Characters below 0x80 as they are (punctuation, keys known to need no escape). */
  raw(ascii: string): void {
    this.ensure(ascii.length);
    for (let i = 0; i < ascii.length; i++) this.buf[this.pos++] = ascii.charCodeAt(i);
  }

  /** A string as a JSON string, quotes included. */
  string(s: string): void {
    // A longer string with nothing to escape and nothing past ASCII in one native write: read a
    // character at a time, a string of 50 took about 3,480 instructions (more for one built by
    // a template literal, which V8 reads through its parts), checked and written natively 2,460.
    if (s.length >= NATIVE_FROM_CHARS && !ESCAPED_OR_NOT_ASCII.test(s)) {
      this.ensure(s.length + 2);
      const buf = this.buf;
      buf[this.pos] = QUOTE;
      const written = buf.write(s, this.pos + 1, 'latin1');
      buf[this.pos + 1 + written] = QUOTE;
      this.pos += written + 2;
      return;
    }
    // Six bytes a character at most (`\u001f`), three a UTF-16 unit in UTF-8; two quotes.
    this.ensure(s.length * 6 + 2);
    const buf = this.buf;
    let pos = this.pos;
    buf[pos++] = QUOTE;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x20 && c < 0x80) {
        if (c === QUOTE || c === BACKSLASH) buf[pos++] = BACKSLASH;
        buf[pos++] = c;
      } else if (c < 0x20) {
        pos = this.control(c, pos);
      } else if (c < 0x800) {
        this.ascii = false;
        buf[pos++] = 0xc0 | (c >> 6);
        buf[pos++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        this.ascii = false;
        pos = utf8Three(buf, pos, c);
      } else {
        const next = c <= 0xdbff && i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (next >= 0xdc00 && next <= 0xdfff) {
          // A pair: its code point in four bytes.
          this.ascii = false;
          const p = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
          buf[pos++] = 0xf0 | (p >> 18);
          buf[pos++] = 0x80 | ((p >> 12) & 0x3f);
          buf[pos++] = 0x80 | ((p >> 6) & 0x3f);
          buf[pos++] = 0x80 | (p & 0x3f);
          i++;
        } else pos = unicodeEscape(buf, pos, c);
      }
    }
    buf[pos++] = QUOTE;
    this.pos = pos;
  }

  /**
   * A string as {@link JsonTextWriter.string} writes it, for one of the few a process writes again
   * and again (a tool, scorer, suite, service or agent name): its bytes copied natively once they
   * are kept ({@link NAMES}). A name of 10 characters written a character at a time took about 600
   * instructions, the copy about 250 (a longer one, checked and written natively, 2,000).
   */
  name(s: string): void {
    const bytes = NAMES.get(s);
    if (bytes !== undefined) {
      this.ensure(bytes.length);
      this.buf.set(bytes, this.pos);
      this.pos += bytes.length;
      return;
    }
    if (NAMES.size >= MAX_NAMES || s.length > MAX_NAME_CHARS) return this.string(s);
    const start = this.pos;
    const ascii = this.ascii;
    this.ascii = true;
    this.string(s);
    if (this.ascii) NAMES.set(flatCopy(s), new Uint8Array(this.buf.subarray(start, this.pos)));
    this.ascii &&= ascii;
  }

  /** How many names the process keeps encoded (at most 512). */
  static get namesKept(): number {
    return NAMES.size;
  }

  /** A value as {@link JsonTextWriter.value} writes it, its strings and an array's as names. */
  names(v: unknown): void {
    if (typeof v === 'string') return this.name(v);
    if (!Array.isArray(v) || !JsonTextWriter.plain(v)) return this.value(v);
    this.raw('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) this.raw(',');
      const item: unknown = v[i];
      if (typeof item === 'string') this.name(item);
      else this.value(item);
    }
    this.raw(']');
  }

  /**
   * JSON text copied as it is, in one native write, when it is ASCII without a line break (true);
   * nothing written when it is not (false: the caller writes the value instead, escaped as this
   * class escapes). The texts written are lines (layout 2's stream entry is split at line
   * breaks), and JSON may hold line breaks between its tokens. The caller vouches that `json` is
   * one JSON value, which `JSON.parse` read whole: it lands in the text unchecked.
   */
  json(json: string): boolean {
    // A line break, which JSON text may hold between its tokens: two native searches, about a
    // third of what a regular expression's test took on an argument's text.
    if (json.indexOf('\n') !== -1 || json.indexOf('\r') !== -1) return false;
    // Three bytes a UTF-16 unit at most in UTF-8: room for whatever the text turns out to be.
    this.ensure(json.length * 3);
    // Every unit below 0x80 is one byte, every other two or more: as many bytes as units is ASCII.
    const bytes = this.buf.write(json, this.pos, 'utf8');
    if (bytes !== json.length) return false;
    this.pos += bytes;
    return true;
  }

  /** A number as `JSON.stringify` writes it: a safe integer's digits without a string made. */
  number(n: number): void {
    if (!Number.isFinite(n)) return this.raw('null');
    if (!Number.isSafeInteger(n)) return this.raw(String(n));
    this.ensure(17);
    if (n < 0) {
      this.buf[this.pos++] = 0x2d;
      n = -n;
    }
    let digits = 1;
    for (let d = n; d >= 10; d = Math.floor(d / 10)) digits++;
    let at = (this.pos += digits);
    do {
      const q = Math.floor(n / 10);
      // The digit first: `0x30 + n` would pass 2 ** 53 and round.
      this.buf[--at] = 0x30 + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /**
   * Any value as `JSON.stringify` writes it (see the class); `undefined`, a function or a symbol
   * writes `null` (where `JSON.stringify` leaves a field out, the caller leaves it out).
   */
  value(v: unknown): void {
    switch (typeof v) {
      case 'string':
        return this.string(v);
      case 'number':
        return this.number(v);
      case 'boolean':
        return this.raw(v ? 'true' : 'false');
      case 'object':
        if (v === null) return this.raw('null');
        if (++this.depth > MAX_DEPTH || !JsonTextWriter.plain(v)) throw LEFT_TO_STRINGIFY;
        if (Array.isArray(v)) this.array(v);
        else this.object(v);
        this.depth--;
        return;
      case 'bigint':
        throw LEFT_TO_STRINGIFY;
      default:
        return this.raw('null');
    }
  }

  /** A field's key and colon, with a comma before it unless `first`. */
  key(name: string, first: boolean): void {
    if (!first) this.raw(',');
    this.string(name);
    this.raw(':');
  }

  /**
   * A key {@link JsonTextWriter.encodeKey} encoded, with a comma before it unless `first`: one
   * native copy (a key of 10 to 20 characters written a character at a time took 600 to 1,200
   * instructions, the copy about 200).
   */
  encodedKey(key: EncodedJsonKey, first: boolean): void {
    const bytes = first ? key.first : key.next;
    if (!key.ascii) this.ascii = false;
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A key's bytes as {@link JsonTextWriter.key} writes them, for {@link JsonTextWriter.encodedKey}. */
  static encodeKey(name: string): EncodedJsonKey {
    // The writer's strings are `JSON.stringify`'s.
    const first = `${JSON.stringify(name)}:`;
    return {
      first: Buffer.from(first, 'utf8'),
      next: Buffer.from(`,${first}`, 'utf8'),
      // eslint-disable-next-line no-control-regex -- what is past ASCII
      ascii: !/[^\u0000-\u007f]/.test(name),
    };
  }

  /** Whether `value` is written as a field of an object (`JSON.stringify` leaves it out if not). */
  static writes(value: unknown): boolean {
    return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
  }

  private array(a: readonly unknown[]): void {
    this.raw('[');
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.raw(',');
      this.value(a[i]);
    }
    this.raw(']');
  }

  /**
   * Whether the writer writes an object itself: not one `JSON.stringify` turns into another value
   * first (its `toJSON`'s, a boxed primitive's).
   */
  static plain(o: object): boolean {
    return !(
      typeof (o as { toJSON?: unknown }).toJSON === 'function' ||
      o instanceof Number ||
      o instanceof String ||
      o instanceof Boolean ||
      o instanceof BigInt
    );
  }

  private object(o: object): void {
    this.raw('{');
    let first = true;
    // `for…in` with `hasOwn`: the own enumerable string keys in `Object.keys`'s order, without
    // the array `Object.keys` makes.
    for (const name in o) {
      if (!hasOwnKey(o, name)) continue;
      const value = (o as Record<string, unknown>)[name];
      if (!JsonTextWriter.writes(value)) continue;
      this.key(name, first);
      this.value(value);
      first = false;
    }
    this.raw('}');
  }

  /** A control character's escape, as `JSON.stringify` writes it. */
  private control(c: number, pos: number): number {
    const short =
      c === 8 ? 0x62 : c === 9 ? 0x74 : c === 10 ? 0x6e : c === 12 ? 0x66 : c === 13 ? 0x72 : 0;
    if (short === 0) return unicodeEscape(this.buf, pos, c);
    this.buf[pos++] = BACKSLASH;
    this.buf[pos++] = short;
    return pos;
  }

  /** Room for `bytes` more, in a buffer twice as large when there is not. */
  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** Lets a grown buffer go (a long text is rare; its bytes are not kept for the next). */
  private release(): void {
    if (this.buf.length > KEPT_BYTES) this.buf = Buffer.allocUnsafeSlow(KEPT_BYTES);
    this.pos = 0;
  }
}

/** A UTF-16 unit below 0x10000 (not a surrogate) as three bytes of UTF-8. */
function utf8Three(buf: Buffer, pos: number, c: number): number {
  buf[pos++] = 0xe0 | (c >> 12);
  buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
  buf[pos++] = 0x80 | (c & 0x3f);
  return pos;
}

/** `\uxxxx`, lower-case hex, as `JSON.stringify` escapes control characters and lone surrogates. */
function unicodeEscape(buf: Buffer, pos: number, c: number): number {
  buf[pos++] = BACKSLASH;
  buf[pos++] = 0x75;
  buf[pos++] = HEX.charCodeAt(c >> 12);
  buf[pos++] = HEX.charCodeAt((c >> 8) & 0xf);
  buf[pos++] = HEX.charCodeAt((c >> 4) & 0xf);
  buf[pos++] = HEX.charCodeAt(c & 0xf);
  return pos;
}

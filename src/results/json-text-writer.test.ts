import { describe, expect, it } from 'vitest';
import { JsonTextWriter } from './json-text-writer.js';

const writer = new JsonTextWriter();
const write = (w: JsonTextWriter, value: unknown): boolean => {
  w.value(value);
  return true;
};
const text = (value: unknown): string =>
  writer.text(value, write, v => JSON.stringify(v) ?? 'undefined');

class Point {
  x = 1;
  y: number | undefined = undefined;
  get z(): number {
    return 3;
  }
}

const strings = [
  '',
  'plain ascii',
  'quote " and backslash \\ and slash /',
  '\b\f\n\r\t\u0000\u0001\u001f\u007f',
  'café é ÿ',
  'Ā 中文 \u2028 \u2029 \uffff',
  'emoji 😀 pair',
  'lone high \ud800 end',
  'lone low \udc00 x',
  'high at end \udbff',
  'reversed \udc00\ud800',
  '\ud83d\ude00\ud83d',
];

const numbers = [
  0,
  -0,
  1,
  -1,
  42,
  9,
  10,
  99_999_999,
  100_000_000,
  100_000_001,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 31 + 1,
  1_795_894_422_753,
  1_000_000_000_005,
  -1_000_000_000_005,
  10 ** 15,
  999_999_999_999_999,
  Number.MAX_SAFE_INTEGER,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53,
  2 ** 60,
  1e21,
  -1e21,
  0.1,
  129.5,
  0.129,
  1e-7,
  5e-324,
  Number.MAX_VALUE,
  NaN,
  Infinity,
  -Infinity,
];

describe('JSON text writer', () => {
  it('writes strings and numbers as JSON.stringify does', () => {
    for (const s of strings) expect(text(s)).toBe(JSON.stringify(s));
    for (const n of numbers) expect(text(n)).toBe(JSON.stringify(n));
  });

  it('writes 10,000 integers of every magnitude, either sign, as JSON.stringify does', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 10_000; i++) {
      const n = Math.floor(random() * 10 ** (1 + (i % 16))) * (i % 3 === 0 ? -1 : 1);
      expect(text(n)).toBe(JSON.stringify(n));
    }
  });

  it('writes objects and arrays as JSON.stringify does', () => {
    const values: unknown[] = [
      null,
      true,
      false,
      [],
      {},
      [1, 'a', null, undefined, () => 1, Symbol('s'), [2, [3]], { a: undefined }],
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
      {
        b: 1,
        a: 2,
        10: 'ten',
        2: 'two',
        'é"\n': strings,
        f: () => 1,
        s: Symbol('s'),
        u: undefined,
      },
      Object.assign(Object.create(null) as object, { k: 'no prototype' }),
      Object.assign(Object.create({ inherited: 1 }) as object, { own: 2 }),
      new Point(),
      new Map([[1, 2]]),
      { nested: { deeper: { deepest: [{ n: numbers }] } } },
      { date: new Date(0), boxed: [new Number(1), new String('s'), new Boolean(false)] },
      { toJSON: () => ({ replaced: true }) },
    ];
    for (const v of values) expect(text(v)).toBe(JSON.stringify(v));
  });

  it('gives texts past its levels, long texts and not-ASCII texts whole', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200; i++) deep = { d: [deep] };
    expect(text(deep)).toBe(JSON.stringify(deep));
    const long = { s: 'x'.repeat(200_000), t: '中'.repeat(50_000) };
    expect(text(long)).toBe(JSON.stringify(long));
    // The buffer grown for it is let go: the next text is still right.
    expect(text({ after: 'é' })).toBe('{"after":"é"}');
  });

  it("throws JSON.stringify's errors", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => text(cycle)).toThrow(TypeError);
    expect(() => text({ big: 1n })).toThrow(TypeError);
  });

  it('writes longer strings as JSON.stringify does, whatever they hold and wherever', () => {
    // From 24 characters a string with nothing to escape is written natively: each character that
    // must be escaped or is past ASCII, at the start, middle and end of strings around that length.
    const specials = [
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '\u007f',
      'é',
      '中',
      '😀',
      '\ud800',
      '\udc00',
    ];
    for (const length of [22, 23, 24, 25, 40, 300])
      for (const c of specials)
        for (const at of [0, Math.floor(length / 2), length - 1]) {
          const s = 'a'.repeat(at) + c + 'b'.repeat(Math.max(0, length - at - 1));
          expect(text(s)).toBe(JSON.stringify(s));
          expect(text({ [s]: [s, s] })).toBe(JSON.stringify({ [s]: [s, s] }));
        }
    // Strings built by concatenation and template literals (ropes in V8), and plain ASCII.
    const names = ['search_flights', 'book_flight'];
    for (let i = 0; i < 50; i++) {
      const s = `tools were called in the relative order ${names[i % 2]!} then ${'x'.repeat(i)}`;
      expect(text(s)).toBe(JSON.stringify(s));
    }
    expect(text('~'.repeat(24))).toBe(`"${'~'.repeat(24)}"`);
  });

  it('writes an encoded key as key writes it, first or after a comma', () => {
    for (const name of ['id', 'timeUnixMs', ...strings]) {
      const key = JsonTextWriter.encodeKey(name);
      for (const first of [true, false]) {
        const encoded = writer.text(
          null,
          w => (w.raw('{'), w.encodedKey(key, first), w.raw('0}'), true),
          String,
        );
        const plain = writer.text(
          null,
          w => (w.raw('{'), w.key(name, first), w.raw('0}'), true),
          String,
        );
        expect(encoded).toBe(plain);
        expect(JSON.parse(first ? encoded : `{${encoded.slice(2)}`)).toEqual({ [name]: 0 });
      }
    }
  });

  it('writes names as JSON.stringify does, kept or not, and keeps at most 512', () => {
    const names = (value: unknown): string =>
      writer.text(
        value,
        (w, v) => (w.names(v), true),
        v => JSON.stringify(v) ?? 'undefined',
      );
    const values: unknown[] = [
      ...strings,
      'x'.repeat(64),
      'y'.repeat(65),
      ['get_weather', 'café', 1, null, undefined, 'get_weather', ['nested']],
      Object.assign(['a'], { toJSON: () => 'left to stringify' }),
      7,
      { k: 'v' },
    ];
    // Twice: written, then copied where kept.
    for (const value of [...values, ...values]) expect(names(value)).toBe(JSON.stringify(value));
    // A name kept with its lone surrogate (its text is ASCII) is found again by its units, and
    // only by them: not by what a copy through latin1 or UTF-8 would have made of it.
    const lone = ' lone \ud800 surrogate ';
    for (const name of [lone.trim(), lone.trim(), 'lone \u0000 surrogate', 'lone \ufffd surrogate'])
      expect(names(name)).toBe(JSON.stringify(name));
    // Not ASCII or longer than 64 characters: not kept.
    for (let i = 0; i < 600; i++) expect(names(`name-${i}`)).toBe(`"name-${i}"`);
    expect(JsonTextWriter.namesKept).toBe(512);
    for (let i = 0; i < 600; i++) expect(names(`name-${i}`)).toBe(`"name-${i}"`);
  });

  it('takes the fallback when the write declines', () => {
    expect(
      writer.text(
        1,
        () => false,
        () => 'fallback',
      ),
    ).toBe('fallback');
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quoteJson } from './quote-json.js';

// An array of 100,000 zeros that counts the items read from it.
function countingArray(): { array: unknown[]; reads: () => number } {
  let reads = 0;
  const array = new Proxy(Array<number>(100_000).fill(0), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { array, reads: () => reads };
}

describe('quoteJson', () => {
  it('writes what JSON.stringify writes when it fits', () => {
    fc.assert(
      fc.property(fc.jsonValue(), value => {
        expect(quoteJson(value, 1_000_000)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('never cuts inside an escape: it ends where the escape starts', () => {
    expect(quoteJson(`${'a'.repeat(195)}\n${'b'.repeat(10)}`, 200)).toBe(`"${'a'.repeat(195)}…`);
    expect(quoteJson(`${'a'.repeat(194)}\u0001bbb`, 200)).toBe(`"${'a'.repeat(194)}…`);
    // An escaped backslash, whole, is kept: the backslash after it starts the cut escape.
    expect(quoteJson(`${'a'.repeat(193)}\\\nbbb`, 200)).toBe(`"${'a'.repeat(193)}\\\\…`);
    const escapes = fc.constantFrom('a', '\n', '"', '\\', '\u0001', '\ud800', '€');
    fc.assert(
      fc.property(
        fc.array(escapes, { maxLength: 120 }),
        fc.integer({ min: 4, max: 300 }),
        (parts, maxBytes) => {
          const quoted = quoteJson(parts.join(''), maxBytes);
          if (!quoted.endsWith('…')) return;
          // What is kept, closed with a quote, is JSON text: no escape is left open.
          expect(() => JSON.parse(`${quoted.slice(0, -1)}"`) as unknown).not.toThrow();
        },
      ),
    );
  });

  it('cuts to the bytes given, with an ellipsis, a prefix of the whole text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 4, max: 300 }), (value, maxBytes) => {
        const whole = JSON.stringify(value);
        const quoted = quoteJson(value, maxBytes);
        expect(Buffer.byteLength(quoted)).toBeLessThanOrEqual(maxBytes);
        if (quoted === whole) return;
        expect(quoted.endsWith('…')).toBe(true);
        expect(whole.startsWith(quoted.slice(0, -1))).toBe(true);
      }),
    );
  });

  it('reads no more of a value than it writes: 100,000 items, about a hundred read', () => {
    const whole = countingArray();
    JSON.stringify(whole.array);
    expect(whole.reads()).toBe(100_000);
    const quoted = countingArray();
    expect(quoteJson(quoted.array, 200)).toBe(`[${'0,'.repeat(98)}…`);
    // "0," is two bytes: 100 items fill 200 bytes, and the walk stops once past them.
    expect(quoted.reads()).toBeLessThanOrEqual(101);
    // A string is read only as far as it is quoted: the same for 10 MB as for 200 bytes.
    expect(quoteJson('x'.repeat(10_000_000), 200)).toBe(`"${'x'.repeat(196)}…`);
  });
});

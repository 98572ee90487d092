import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUnreadKey, isUnreadKeyBytes, UNREAD_ATTRIBUTE_FAMILIES } from './unread-attributes.js';

/** `key`'s UTF-8 bytes in a buffer whose memory starts `offset` bytes in, with bytes around it. */
function placed(key: string, offset: number): { buf: Buffer; start: number; end: number } {
  const bytes = Buffer.from(key, 'utf8');
  const memory = Buffer.concat([Buffer.alloc(offset + 3, 0x2e), bytes, Buffer.alloc(5, 0x2e)]);
  const buf = memory.subarray(offset);
  return { buf, start: 3, end: 3 + bytes.length };
}

describe('isUnreadKeyBytes', () => {
  // The bytes form against the string form, on keys at and around every family's edges.
  const keys = [''];
  for (const family of UNREAD_ATTRIBUTE_FAMILIES) {
    keys.push(
      family,
      `${family}x`,
      `${family}status_code`,
      family.slice(0, -1),
      `${family.slice(0, -1)}x`,
    );
    for (let i = 0; i < family.length; i++) {
      const c = family.charCodeAt(i);
      keys.push(`${family.slice(0, i)}${String.fromCharCode(c ^ 1)}${family.slice(i + 1)}rest`);
      keys.push(`${family.slice(0, i)}é${family.slice(i + 1)}rest`);
    }
  }
  keys.push(
    'gen_ai.tool.name',
    'gen_ai.response.id',
    'gen_ai.usage',
    'h',
    'ht',
    'htt',
    'http',
    'é.x',
  );

  it('tells a key in a family as the string form does, at every offset of its memory', () => {
    for (const key of keys)
      for (let offset = 0; offset < 4; offset++) {
        const { buf, start, end } = placed(key, offset);
        expect([key, isUnreadKeyBytes(buf, start, end)]).toEqual([key, isUnreadKey(key)]);
      }
  });

  it('agrees with the string form on generated keys', () => {
    const family = fc.constantFrom(...UNREAD_ATTRIBUTE_FAMILIES, 'gen_ai.', 'http', '');
    fc.assert(
      fc.property(
        family,
        fc.string({ maxLength: 12 }),
        fc.nat({ max: 7 }),
        (prefix, rest, offset) => {
          const key = prefix + rest;
          const { buf, start, end } = placed(key, offset);
          expect(isUnreadKeyBytes(buf, start, end)).toBe(isUnreadKey(key));
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

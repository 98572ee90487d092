import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recurringString } from './recurring-string.js';

describe('recurringString: the decoder cache of repeating strings', () => {
  it('always gives the bytes’ UTF-8 string, whatever was cached before (collisions included)', () => {
    // Thousands of short byte strings over 4,096 slots: some share a slot and replace each other.
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 60 }), { minLength: 1, maxLength: 200 }),
        fc.nat({ max: 7 }),
        (list, pad) => {
          for (const bytes of [...list, ...list]) {
            const buf = Buffer.concat([Buffer.alloc(pad, 0x61), bytes, Buffer.alloc(3, 0x62)]);
            expect(recurringString(buf, pad, pad + bytes.length)).toBe(
              Buffer.from(bytes).toString('utf8'),
            );
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('hands back the same string for the same bytes at another offset', () => {
    const a = Buffer.from('xx gen_ai.tool.name yy');
    const b = Buffer.from('gen_ai.tool.name');
    expect(recurringString(a, 3, 19)).toBe('gen_ai.tool.name');
    expect(recurringString(b, 0, b.length)).toBe(recurringString(a, 3, 19));
    expect(recurringString(Buffer.from('gen_ai.tool.namf'), 0, 16)).toBe('gen_ai.tool.namf');
  });
});

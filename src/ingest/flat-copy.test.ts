import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatCopy } from './flat-copy.js';

describe('flatCopy', () => {
  it('returns every string code unit for code unit, lone surrogates and views included', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.string({ maxLength: 80 })),
        fc.nat(40),
        (s, pad) => {
          expect(flatCopy(s)).toBe(s);
          // A trimmed string is what the pipeline keeps (a view of its parent from 13 chars).
          const view = (s + ' '.repeat(pad)).trimEnd();
          expect(flatCopy(view)).toBe(view);
        },
      ),
    );
    for (const s of ['\ud800', 'x\udc00'.repeat(9), '€'.repeat(20), 'é'.repeat(13), ''])
      expect(flatCopy(s)).toBe(s);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SharedCopies } from './shared-copies.js';

describe('SharedCopies', () => {
  it('gives back each name as it is, past its bound of characters too', () => {
    // 40 characters held at most: the names below fill it again and again.
    const copies = new SharedCopies(40);
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'binary', maxLength: 30 }), { maxLength: 20 }),
        names => {
          for (const name of names) {
            const view = (name + '   ').trimEnd();
            expect(copies.of(view)).toBe(view);
            expect(copies.of(name)).toBe(name);
          }
        },
      ),
    );
  });
});

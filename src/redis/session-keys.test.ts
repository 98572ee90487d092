import { generateMulti } from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { parsePartMember, partMember, sessionKeys } from './session-keys.js';

const slot = (key: string) => generateMulti([key]);

describe('sessionKeys', () => {
  it.each(['conv-1', 'a}b', '}x', '~}x', '~x', '{', '{}', '}', 'ü-会话'])(
    'puts every key of session %j on one slot',
    id => {
      const keys = sessionKeys('p', id);
      const slots = new Set([keys.base, keys.part(2), keys.part(17)].map(slot));
      expect(slots.size).toBe(1);
      expect(keys.part(1)).toBe(keys.base);
    },
  );

  it('keeps the previous release’s key for an ordinary id', () => {
    expect(sessionKeys('p', 'conv-1').base).toBe('p:session:{conv-1}');
  });

  it('gives two ids no key in common, however their text looks', () => {
    const ids = ['x', 'x}:2', '}x', '~}x', '~~}x', 'x}', 'x}:', '2:x', '~x'];
    const seen = new Map<string, string>();
    for (const id of ids) {
      const keys = sessionKeys('p', id);
      for (const key of [keys.base, keys.part(2), keys.part(12)]) {
        expect(seen.get(key) ?? id, key).toBe(id);
        seen.set(key, id);
      }
    }
  });

  it('names a part by its number and session id, and reads it back', () => {
    for (const [id, part] of [
      ['conv-1', 1],
      ['a:b', 12],
      ['', 3],
    ] as const)
      expect(parsePartMember(partMember(id, part))).toEqual({ sessionId: id, part });
  });
});

import { describe, expect, it } from 'vitest';
import { boundedNames, OTHER } from './bounded-names.js';

describe('boundedNames', () => {
  it('returns the same kept name every time, equal to the one given, and `other` past the bound', () => {
    const names = boundedNames(2);
    const first = names('svc', 'tool_0001_abcdef  '.trim());
    expect(first).toBe('tool_0001_abcdef');
    const again = names('svc', 'tool_0001_abcdef   '.trim());
    expect(again).toBe(first);
    expect(names('svc', 'b')).toBe('b');
    expect(names('svc', 'c')).toBe(OTHER);
    expect(names('svc', 'tool_0001_abcdef')).toBe('tool_0001_abcdef');
    expect(names('other-svc', 'c')).toBe('c');
  });
});

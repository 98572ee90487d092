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

  it('keeps the first names of each group up to the bound, and says other after', () => {
    const names = boundedNames(2);
    expect(['a', 'b', 'c', 'a', 'c', 'b'].map(n => names('', n))).toEqual([
      'a',
      'b',
      OTHER,
      'a',
      OTHER,
      'b',
    ]);
  });

  it('answers a pair asked twice in a row as it did the first time', () => {
    const names = boundedNames(1);
    expect(names('', 'a')).toBe('a');
    expect(names('', 'a')).toBe('a');
    expect(names('', 'b')).toBe(OTHER);
    expect(names('', 'b')).toBe(OTHER);
    // A name refused stays refused, however often it comes back.
    expect(names('', 'a')).toBe('a');
    expect(names('', 'b')).toBe(OTHER);
  });

  it('tells the same name in another group apart from the last one asked', () => {
    const names = boundedNames(1);
    expect(names('s1', 'a')).toBe('a');
    expect(names('s1', 'b')).toBe(OTHER);
    // The same name right after, in a group of its own: kept there, not `other` as in s1.
    expect(names('s2', 'b')).toBe('b');
    expect(names('s1', 'b')).toBe(OTHER);
    expect(names('s2', 'c')).toBe(OTHER);
  });

  it('compares names by value, not by instance', () => {
    const names = boundedNames(1);
    const a = ['x', 'y'].join('');
    expect(names('', a)).toBe('xy');
    expect(names('', 'xy')).toBe('xy');
    expect(names('', ['x', 'z'].join(''))).toBe(OTHER);
  });
});

import { describe, expect, it } from 'vitest';
import { NestedCache } from './nested-cache.js';

describe('NestedCache', () => {
  it('makes a value once per tuple, reading the array it is given, not keeping it', () => {
    const cache = new NestedCache<string>();
    let made = 0;
    const make = (keys: readonly string[]): string => `${++made}:${keys.join('/')}`;
    const keys = ['a', 'b'];
    expect(cache.get(keys, make)).toBe('1:a/b');
    keys[1] = 'c'; // refilled, as the hot paths do
    expect(cache.get(keys, make)).toBe('2:a/c');
    expect(cache.get(['a', 'b'], make)).toBe('1:a/b');
    expect(made).toBe(2);
  });

  it('keeps tuples of different lengths apart: a shorter one is never a longer one’s level', () => {
    const cache = new NestedCache<string>();
    const make = (keys: readonly string[]): string => keys.join('/');
    expect(cache.get(['a', 'b'], make)).toBe('a/b');
    expect(cache.get(['a', 'b', 'c'], make)).toBe('a/b/c');
    expect(cache.get(['a'], make)).toBe('a');
    expect(cache.get(['a', 'b'], make)).toBe('a/b');
  });

  it('starts again past its maximum: a flood of distinct tuples is held once', () => {
    const cache = new NestedCache<number>(3);
    let made = 0;
    const make = (): number => ++made;
    for (const k of ['a', 'b', 'c']) cache.get([k, 'x'], make);
    expect(cache.get(['a', 'x'], make)).toBe(1);
    // The fourth empties it: the first three are made again when asked.
    expect(cache.get(['d', 'x'], make)).toBe(4);
    expect(cache.get(['a', 'x'], make)).toBe(5);
    expect(made).toBe(5);
  });
});

import { describe, expect, it } from 'vitest';
import { compareArguments } from './compare-arguments.js';

describe('compareArguments', () => {
  it.each([
    ['ignore', { a: 1 }, { b: 2 }, 1],
    ['exact', { a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 }, 1],
    ['exact', { a: 1 }, { a: 1, extra: true }, 0],
    ['exact', { a: 75 }, { a: '75' }, 0],
    ['subset', { a: 1 }, { a: 1, extra: true }, 1],
    ['subset', { a: { b: 1 } }, { a: { b: 1, c: 2 } }, 1],
    ['subset', { a: 1, b: 2 }, { a: 1 }, 0],
    ['partial', { a: 1, b: 2 }, { a: 1, b: 3, c: 4 }, 0.5],
    ['partial', { a: { x: 1, y: 2 }, b: 1 }, { a: { x: 1, y: 0 }, b: 1 }, 0.75],
    ['partial', { list: [1, 2] }, { list: [1, 2, 3] }, 0],
    ['fuzzy', { city: 'San Francisco' }, { city: 'san francisco ' }, 1],
    ['fuzzy', { n: 100 }, { n: '90' }, 0.9],
    ['fuzzy', { q: 'kitten' }, { q: 'sitting' }, 1 - 3 / 7],
  ] as const)('%s(%j, %j) = %d', (mode, expected, actual, score) => {
    expect(compareArguments(expected, actual, mode)).toBeCloseTo(score, 10);
  });

  it('sees a `__proto__` argument (an own key of parsed JSON) with ignoreKeys as without', () => {
    // The copy that drops ignored keys used to assign it, setting the copy's prototype: the extra
    // argument vanished and `exact` scored 1.
    const actual = JSON.parse('{"city":"Paris","__proto__":{"units":"kelvin"}}') as unknown;
    expect(compareArguments({ city: 'Paris' }, actual, 'exact')).toBe(0);
    expect(compareArguments({ city: 'Paris' }, actual, 'exact', ['request_id'])).toBe(0);
    // Ignored by name, it goes as any key does.
    expect(compareArguments({ city: 'Paris' }, actual, 'exact', ['__proto__'])).toBe(1);
  });

  it('ignores keys by name at any depth and by dotted path from the top', () => {
    expect(
      compareArguments({ q: 'x', request_id: 'a' }, { q: 'x', request_id: 'b' }, 'exact', [
        'request_id',
      ]),
    ).toBe(1);
    expect(
      compareArguments({ meta: { ts: 1, k: 2 } }, { meta: { ts: 9, k: 2 } }, 'exact', ['meta.ts']),
    ).toBe(1);
    expect(
      compareArguments({ ts: 1, meta: { ts: 1 } }, { ts: 1, meta: { ts: 9 } }, 'exact', [
        'other.ts',
      ]),
    ).toBe(0);
  });
});

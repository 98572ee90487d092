import { describe, expect, it } from 'vitest';
import { isMultipleOf } from './is-multiple-of.js';

describe('isMultipleOf', () => {
  it.each([
    [0.3, 0.1, true],
    [19.99, 0.01, true],
    [-2e21, 2, true],
    [4e22, 2, true],
    [1e308, 1e-300, true],
    [0, 0.7, true],
    [7, 2, false],
    [0.35, 0.1, false],
    [5e-324, 1, false],
    [1e-7, 1e-8, true],
    [1.0000000001, 1, false],
    [Infinity, 1, false],
    [NaN, 1, false],
    [4, 0, false],
    [4, -2, false],
  ])('%s multipleOf %s: %s', (value, divisor, expected) => {
    expect(isMultipleOf(value, divisor)).toBe(expected);
  });
});

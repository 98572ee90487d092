import { describe, expect, it } from 'vitest';
import { closestIds } from './closest-ids.js';

describe('closestIds', () => {
  const known = ['weather-lisbon', 'weather-oslo', 'book-trip', 'wrong-tool'];

  it('names the nearest ids first, case folded, at most three', () => {
    expect(closestIds('Weather-Lisbn', known)).toEqual(['weather-lisbon', 'weather-oslo']);
    expect(closestIds('book_trip', known)).toEqual(['book-trip']);
  });

  it('names nothing when no id is near', () => {
    expect(closestIds('refund-order', known)).toEqual([]);
  });

  it('keeps within maxDistance edits when given one', () => {
    expect(closestIds('wether-lisbn', known, 3, 1)).toEqual([]);
    expect(closestIds('wether-lisbn', known, 3, 2)).toEqual(['weather-lisbon']);
  });
});

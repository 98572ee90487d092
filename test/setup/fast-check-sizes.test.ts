import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// What test/setup/fast-check-sizes.ts promises every fuzz in the suite; without it fast-check 4
// draws at most 10 items whatever maximum a test names.
describe('fast-check in this suite', () => {
  it('draws up to the maxLength an arbitrary names', () => {
    const longest = (a: fc.Arbitrary<{ length: number }>) =>
      Math.max(...fc.sample(a, { numRuns: 500, seed: 1 }).map(x => x.length));
    expect(longest(fc.uint8Array({ maxLength: 512 }))).toBeGreaterThan(100);
    expect(longest(fc.array(fc.nat(), { maxLength: 200 }))).toBeGreaterThan(50);
    expect(longest(fc.string({ maxLength: 300 }))).toBeGreaterThan(50);
  });

  it('keeps the small default where no maximum is named', () => {
    const lengths = fc.sample(fc.array(fc.nat()), { numRuns: 500, seed: 1 }).map(x => x.length);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(10);
  });
});

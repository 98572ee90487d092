import { describe, expect, it } from 'vitest';
import { isVolatileKey, isVolatileValue, stableArguments } from './volatile-arguments.js';

describe('volatile arguments', () => {
  it("keeps a recorded '__proto__' argument as an own key, not as the copy's prototype", () => {
    // From a trace: assigned, it became the recorded expectation's prototype (its keys readable
    // through it, and left out of the suite written).
    const { args } = stableArguments(JSON.parse('{"city":"Paris","__proto__":{"units":"kelvin"}}'));
    expect(Object.keys(args as object)).toEqual(['city', '__proto__']);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(JSON.stringify(args)).toBe('{"city":"Paris","__proto__":{"units":"kelvin"}}');
  });

  it.each([
    ['id', true],
    ['requestId', true],
    ['session_id', true],
    ['X-Trace-Id', true],
    ['createdAt', true],
    ['timestamp', true],
    ['flightId', false],
    ['city', false],
    ['date', false],
    ['idea', false],
  ])('key %s is volatile: %s', (key, volatile) => {
    expect(isVolatileKey(key)).toBe(volatile);
  });

  it.each([
    ['3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b', true],
    ['2026-11-25T14:03:00Z', true],
    ['2026-11-25 14:03', true],
    ['2026-12-01', false],
    [1764079380000, true],
    ['1764079380', true],
    [1764079380, true],
    [42, false],
    [2026, false],
    ['9f86d081884c7d659a2feaa0c55ad015', true],
    ['call_8Hq2ZbX4kLmN0pQrStUvWx12', true],
    ['TP541', false],
    ['Paris', false],
    ['a sentence that is long but has spaces 123', false],
    ['abcdefghijklmnopqrstuvwxyzabc', false],
  ])('value %j is volatile: %s', (value, volatile) => {
    expect(isVolatileValue(value)).toBe(volatile);
  });

  it('leaves volatile parts out with their paths, keeping the rest', () => {
    expect(
      stableArguments({
        to: 'NYC',
        requestId: 'r-1',
        when: '2026-11-25T10:00:00Z',
        passenger: { name: 'Ana', uuid: '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b' },
        seats: ['12A', '12B'],
        tags: ['x', '2026-11-25T10:00:00Z'],
      }),
    ).toEqual({
      args: { to: 'NYC', passenger: { name: 'Ana' }, seats: ['12A', '12B'] },
      leftOut: ['requestId', 'when', 'passenger.uuid', 'tags'],
    });
    expect(stableArguments('3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b')).toEqual({
      args: undefined,
      leftOut: ['(arguments)'],
    });
    expect(stableArguments('LON-NYC-2')).toEqual({ args: 'LON-NYC-2', leftOut: [] });
    expect(stableArguments(undefined)).toEqual({ args: undefined, leftOut: [] });
  });
});

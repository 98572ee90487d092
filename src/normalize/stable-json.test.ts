import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableJson } from './stable-json.js';

/**
 * The contract, stated the other way: `JSON.stringify` of the value with every plain object
 * replaced by a copy built in sorted key order (which V8 enumerates array indexes first), and
 * bigints as their digits.
 */
function sortedCopyJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const sorted: Record<string, unknown> = {};
        // Defined, not assigned: a `__proto__` key is a key like any other.
        for (const k of Object.keys(v).sort())
          Object.defineProperty(sorted, k, {
            value: (v as Record<string, unknown>)[k],
            enumerable: true,
            writable: true,
            configurable: true,
          });
        return sorted;
      }
      return v;
    }) ?? 'undefined'
  );
}

/** Keys that exercise the order: array indexes, near-indexes and names. */
const key = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('0', '1', '2', '10', '01', '-1', '1.5', '4294967294', '4294967295', '__proto__'),
  fc.nat({ max: 1000 }).map(String),
);

const value = fc.letrec<{ value: unknown }>(tie => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 8 }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(key, tie('value'), { maxKeys: 6 }),
  ),
}));

describe('stableJson', () => {
  it('writes what JSON.stringify writes of a copy with sorted keys, for any value', () => {
    fc.assert(
      fc.property(value.value, v => {
        expect(stableJson(v)).toBe(sortedCopyJson(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives equal text for equal values whatever their keys order', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value.value, { maxKeys: 8 }), object => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(stableJson(reversed)).toBe(stableJson(object));
      }),
    );
  });

  it('orders array indexes numerically before names, as an object enumerates them', () => {
    expect(stableJson({ b: 1, 10: 2, a: 3, 2: 4, '01': 5, 4294967295: 6 })).toBe(
      '{"2":4,"10":2,"01":5,"4294967295":6,"a":3,"b":1}',
    );
  });

  it('calls toJSON with the key, writes bigints as strings, drops what JSON has no value for', () => {
    const stamped = { toJSON: (k: string) => ({ z: k, a: 1n }) };
    expect(
      stableJson({ at: stamped, f: () => 1, u: undefined, list: [undefined, Symbol('s')] }),
    ).toBe('{"at":{"a":"1","z":"at"},"list":[null,null]}');
    expect(stableJson(undefined)).toBe('undefined');
    expect(stableJson([NaN, -0, 1e21])).toBe('[null,0,1e+21]');
  });

  it('gives a nesting too deep for the stack a text equal to no other, and never throws for it', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    const first = stableJson(deep);
    const second = stableJson(deep);
    expect(first.startsWith('\u0000too deep ')).toBe(true);
    expect(second).not.toBe(first);
  });

  it('reads each key of a wide object once, and lists its keys once', () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 50_000; i++) wide[`k${i}`] = i;
    const reads = { get: 0, ownKeys: 0 };
    const counted = new Proxy(wide, {
      get: (target, key) => (reads.get++, Reflect.get(target, key)),
      ownKeys: target => (reads.ownKeys++, Reflect.ownKeys(target)),
    });
    const text = stableJson(counted);
    expect(text.startsWith('{"k0":0,"k1":1,"k10":10,')).toBe(true);
    // Each key's value once, and `toJSON` asked once.
    expect(reads).toEqual({ get: 50_001, ownKeys: 1 });
  });

  it('gives a value that contains itself the too-deep text, as it does a nesting too deep', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    const list: unknown[] = [1];
    list.push(list);
    expect(stableJson(cycle).startsWith('\u0000too deep ')).toBe(true);
    expect(stableJson(list).startsWith('\u0000too deep ')).toBe(true);
  });

  it('leaves an error other than the stack to the caller', () => {
    expect(() =>
      stableJson({
        get boom(): never {
          throw new TypeError('getter');
        },
      }),
    ).toThrow(TypeError);
  });
});

import { describe, expect, it } from 'vitest';
import { captureValue, DEFAULT_REDACTED_KEYS } from './capture-value.js';

const options = { maxLength: 4096, redactKeys: DEFAULT_REDACTED_KEYS };
/** Values and keys captureValue may visit for a 4,096-character text: 2 × 4,096 + 64. */
const MAX_VISITS = 8256;

describe('captureValue', () => {
  it('reads a value that references one child many times at every level only as far as the kept text', () => {
    // 13 small objects, 3 getters each: 3^12 = 531,441 paths, every one walked before.
    let reads = 0;
    let node: unknown = 0;
    for (let level = 0; level < 12; level++) {
      const child = node;
      const read = (): unknown => (reads++, child);
      node = Object.defineProperties(
        {},
        {
          a: { get: read, enumerable: true },
          b: { get: read, enumerable: true },
          c: { get: read, enumerable: true },
        },
      );
    }
    const text = captureValue(node, options);
    expect(reads).toBeLessThanOrEqual(MAX_VISITS);
    expect(text).toMatch(/^\{"a":\{"a":.*…\[cut at \d+ characters\]$/);
    expect(text.length).toBeLessThanOrEqual(4096 + 30);
  });

  it('reads a long sparse array only as far as the kept text', () => {
    const holes: unknown[] = [];
    holes.length = 1_000_000;
    let reads = 0;
    const counted = new Proxy(holes, {
      has: (target, key) => (reads++, Reflect.has(target, key)),
      get: (target, key) => (reads++, Reflect.get(target, key) as unknown),
    });
    const text = captureValue(counted, options);
    expect(text.startsWith('[null,null,')).toBe(true);
    expect(text.endsWith('characters]')).toBe(true);
    expect(reads).toBeLessThanOrEqual(2 * MAX_VISITS);
  });

  it('stringifies no more of a long string inside a value than the text keeps', () => {
    const text = captureValue({ a: 'x'.repeat(10_000_000) }, options);
    expect(text).toBe(`{"a":"${'x'.repeat(4090)}…[cut at 4096 characters]`);
  });

  it('marks a part that throws when read in its place, whatever it throws, and never throws', () => {
    const value = {
      a: 1,
      get b(): never {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- what is tested
        throw undefined;
      },
      c: {
        toJSON(): never {
          throw new Error('no JSON');
        },
      },
      d: new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('no keys');
          },
        },
      ),
      e: 'kept',
    };
    expect(JSON.parse(captureValue(value, options))).toEqual({
      a: 1,
      b: '[unserializable: undefined]',
      c: '[unserializable: no JSON]',
      d: '[unserializable: no keys]',
      e: 'kept',
    });
  });

  it('honours toJSON, as JSON does, and redacts what it returns', () => {
    class Money {
      constructor(readonly cents: number) {}
      toJSON(): unknown {
        return { amount: this.cents / 100, apiKey: 'k' };
      }
    }
    expect(captureValue({ price: new Money(150) }, options)).toBe(
      '{"price":{"amount":1.5,"apiKey":"[REDACTED]"}}',
    );
  });

  it('never cuts a string between the halves of a surrogate pair', () => {
    expect(captureValue(`${'a'.repeat(4095)}😀`, options)).toBe(
      `${'a'.repeat(4095)}…[2 more characters]`,
    );
  });
});

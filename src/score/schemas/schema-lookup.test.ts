import { describe, expect, it } from 'vitest';
import type { GivenSchemas } from './given-schemas.js';
import { createMemorySchemaRegistry } from './memory-schema-registry.js';
import { createSchemaLookup } from './schema-lookup.js';
import type { SchemaRegistry } from './schema-registry.js';

const T0 = 1_767_225_600_000;
const TRACE = 'c'.repeat(32);

/** A registry whose reads are counted (the work a stream of traces costs the store). */
function counted(registry: SchemaRegistry): SchemaRegistry & { reads: number; tools: number } {
  const out = {
    ...registry,
    reads: 0,
    tools: 0,
    get: (...args: Parameters<SchemaRegistry['get']>) => {
      out.reads++;
      out.tools += args[2].length;
      return registry.get(...args);
    },
  };
  return out;
}

const given: GivenSchemas = [
  {
    service: 'shop',
    version: '2.0',
    file: 'v2.json',
    tools: new Map([['get_price', { name: 'get_price', schema: { title: 'given v2' } }]]),
  },
  {
    service: 'shop',
    file: 'all.json',
    tools: new Map([['get_price', { name: 'get_price', schema: { title: 'given' } }]]),
  },
];

describe('createSchemaLookup', () => {
  it("prefers the config's schema (its version's, then the service's) to a learned one, and names the source", async () => {
    const registry = createMemorySchemaRegistry();
    await registry.put(
      'shop',
      '1.0',
      [
        {
          tool: 'get_price',
          name: 'getPrice',
          text: '{"title":"learned"}',
          traceId: TRACE,
          seenAtUnixMs: T0,
        },
        {
          tool: 'get_stock',
          name: 'get_stock',
          text: '{"title":"stock"}',
          traceId: TRACE,
          seenAtUnixMs: T0,
        },
      ],
      T0,
    );
    const lookup = createSchemaLookup({ given, learned: registry, now: () => T0 + 5000 });
    const v1 = await lookup('shop', '1.0', ['functions.getPrice', 'get_stock', 'unknown']);
    expect(v1.get('get_price')).toEqual({
      schema: { title: 'given' },
      source: { kind: 'config', file: 'all.json' },
    });
    expect(v1.get('get_stock')).toEqual({
      schema: { title: 'stock' },
      source: { kind: 'learned', traceId: TRACE, seenAtUnixMs: T0, ageMs: 5000 },
    });
    expect(v1.has('unknown')).toBe(false);
    expect((await lookup('shop', '2.0', ['get_price'])).get('get_price')!.source).toEqual({
      kind: 'config',
      file: 'v2.json',
    });
    // Learning off: only what the config gives.
    const off = createSchemaLookup({ given, now: () => T0 });
    expect([...(await off('shop', '1.0', ['get_price', 'get_stock'])).keys()]).toEqual([
      'get_price',
    ]);
  });

  it('reads the store once per tool per cache period, and parses each schema text once', async () => {
    const registry = counted(createMemorySchemaRegistry());
    await registry.put(
      'shop',
      '',
      [{ tool: 'a', name: 'a', text: '{"type":"object"}', traceId: TRACE, seenAtUnixMs: T0 }],
      T0,
    );
    let clock = T0;
    const lookup = createSchemaLookup({
      given: [],
      learned: registry,
      now: () => clock,
      cacheMs: 5000,
    });
    const first = await lookup('shop', '', ['a', 'b']);
    for (let i = 0; i < 1000; i++) await lookup('shop', '', ['a', 'b']);
    expect(registry.reads).toBe(1);
    expect((await lookup('shop', '', ['a'])).get('a')!.schema).toBe(first.get('a')!.schema);
    clock += 4999;
    await lookup('shop', '', ['a', 'b']);
    expect(registry.reads).toBe(1);
    // Past `cacheMs` by the lookup's clock, the store is read again (both tools).
    clock += 2;
    await lookup('shop', '', ['a', 'b']);
    expect(registry.reads).toBe(2);
    expect(registry.tools).toBe(4);
  });

  it('keeps an answer it had cached when it expires while the store is read for another tool', async () => {
    const registry = createMemorySchemaRegistry();
    let clock = T0;
    const slow: SchemaRegistry = {
      ...registry,
      // The store takes longer than the cache's 1 ms: the answer for `a`, cached before, expires
      // meanwhile (by the lookup's clock, which the cache reads too).
      get: async (...args) => {
        clock += 20;
        return registry.get(...args);
      },
    };
    const lookup = createSchemaLookup({
      given: [],
      learned: slow,
      now: () => clock,
      cacheMs: 1,
    });
    lookup.remember('shop', '', [
      { tool: 'a', name: 'a', text: '{"title":"a"}', traceId: TRACE, seenAtUnixMs: T0 },
    ]);
    // `a` is answered from the cache, `b` asked of the store (which has nothing for it).
    const found = await lookup('shop', '', ['a', 'b']);
    expect(found.get('a')?.schema).toEqual({ title: 'a' });
    expect(found.has('b')).toBe(false);
  });

  it('gives nothing (and reports) when the store fails, and asks again next time', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const registry = createMemorySchemaRegistry();
    const flaky: SchemaRegistry = {
      ...registry,
      get: (...args) => (fail ? Promise.reject(new Error('down')) : registry.get(...args)),
    };
    await registry.put(
      'shop',
      '',
      [{ tool: 'a', name: 'a', text: '{}', traceId: TRACE, seenAtUnixMs: T0 }],
      T0,
    );
    const lookup = createSchemaLookup({
      given: [],
      learned: flaky,
      now: () => T0,
      onError: e => errors.push(e),
    });
    expect((await lookup('shop', '', ['a'])).size).toBe(0);
    expect(errors).toHaveLength(1);
    fail = false;
    expect((await lookup('shop', '', ['a'])).size).toBe(1);
  });

  it('reads nothing for a name nothing is learned for: an unnamed service, an over-long name', async () => {
    const registry = counted(createMemorySchemaRegistry());
    const lookup = createSchemaLookup({ given: [], learned: registry });
    await lookup('unknown_service', '', ['a']);
    await lookup('x'.repeat(300), '', ['a']);
    await lookup('shop', '', ['y'.repeat(300)]);
    expect(registry.reads).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { stringAttribute } from './attribute-values.js';
import { findIdAttributes, idNames, readIdAttribute, type IdSource } from './find-id-attribute.js';

const span = (attributes: Record<string, unknown>): SpanDigest =>
  ({ attributes }) as unknown as SpanDigest;

/**
 * The lookup as it was written before ids were read in one walk, one walk per name: for each name
 * in order, the root's attribute, then any span's; then the same inside JSON. The reference the
 * one-walk lookup must agree with.
 */
function perName(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[],
  readsJson: (key: string) => boolean,
): IdSource | undefined {
  for (const key of keys) {
    const fromRoot = root ? stringAttribute(root.attributes, key) : undefined;
    if (fromRoot !== undefined) return { id: fromRoot, attribute: key };
    for (const s of spans) {
      const value = stringAttribute(s.attributes, key);
      if (value !== undefined) return { id: value, attribute: key };
    }
    if (!key.includes('.') || !readsJson(key)) continue;
    for (const s of root ? [root, ...spans] : spans) {
      const found = readIdAttribute(s.attributes, key);
      if (found) return { ...found, attribute: key };
    }
  }
  return undefined;
}

/** A small deterministic generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LISTS: Array<[readonly string[], (key: string) => boolean]> = [
  [['a.id', 'b', 'meta.case'], key => key !== 'a.id'],
  [['b', 'meta.case'], () => false],
  [['s.id', 'meta.session', 'a.id'], () => true],
  // A name in an unread family (`http.`) is read from a span's whole attributes.
  [['http.case', 'b'], () => true],
];
const NAMES = LISTS.map(([keys, readsJson]) => idNames(keys, readsJson));

describe('findIdAttributes: several lists of names in one walk', () => {
  it('finds what one walk per name finds, list by list, on 2,000 generated traces', () => {
    const next = random(57);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    for (let trace = 0; trace < 2000; trace++) {
      const spans = Array.from({ length: 1 + Math.floor(next() * 6) }, (_, i) => {
        const attributes: Record<string, unknown> = {};
        for (const key of ['a.id', 'b', 's.id', 'meta.case', 'http.case'])
          if (next() < 0.15) attributes[key] = pick([`${key}@${i}`, '', 7, true]);
        // Keys of no list, and prefixes and extensions of theirs: a span may hold only these.
        for (const key of ['other', 'a.i', 'b.c', 'meta.cases', 'metadata', 's'])
          if (next() < 0.3) attributes[key] = pick([`${key}@${i}`, '{"case":"no"}', 1]);
        if (next() < 0.3)
          attributes.meta = pick([
            `{"case":"json@${i}","session":"s@${i}"}`,
            '{"case":""}',
            'not json',
            { session: `kv@${i}` },
          ]);
        if (next() < 0.1) attributes.a = `{"id":"a-json@${i}"}`;
        return span(attributes);
      });
      const root = next() < 0.8 ? pick(spans) : undefined;
      expect(findIdAttributes(spans, root, NAMES)).toEqual(
        LISTS.map(([keys, readsJson]) => perName(spans, root, keys, readsJson)),
      );
    }
  });

  it('asks a span for no name unless it holds one, or a JSON holder of one', () => {
    // Spans whose attributes count the names looked up in them (enumerating keys is not a lookup).
    let lookups = 0;
    const counted = (attributes: Record<string, unknown>): SpanDigest =>
      span(
        new Proxy(attributes, {
          get(target, key) {
            lookups++;
            return target[key as string];
          },
        }),
      );
    const unrelated = Array.from({ length: 50 }, (_, i) =>
      counted({ other: i, 'a.i': 'x', 'meta.cases': 'y', 'b.c': 'z', s: 'w' }),
    );
    const direct = idNames(['a.id', 'b', 's.id'], () => false);
    expect(findIdAttributes([...unrelated, counted({ b: 'found' })], undefined, [direct])).toEqual([
      { id: 'found', attribute: 'b' },
    ]);
    // Only the last span was asked: `a.id`, then `b`, which it holds.
    expect(lookups).toBe(2);

    // A holder of a name read inside JSON makes a span asked; its JSON is read once.
    lookups = 0;
    const inJson = idNames(['meta.case'], () => true);
    expect(
      findIdAttributes([...unrelated, counted({ meta: '{"case":"c-1"}' })], undefined, [inJson]),
    ).toEqual([{ id: 'c-1', attribute: 'meta.case', inJson: { attribute: 'meta', key: 'case' } }]);
    expect(lookups).toBe(2); // `meta.case` whole, then its holder `meta`
  });

  it('costs one set lookup per attribute of a span, however many lists ask (hostile sizes)', () => {
    // 40 lists (a plan of many suites) and spans of 1,000 attributes, none of them a name.
    const lists = Array.from({ length: 40 }, (_, i) =>
      idNames([`suite${i}.case`, `suite${i}.id`], () => true),
    );
    const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`attr.${i}`, i]));
    const spans = [span(wide), span(wide), span({ 'suite39.id': 'last' })];
    // Set#has counted while the lookup runs (restored after: other files share this worker).
    const original = Object.getOwnPropertyDescriptor(Set.prototype, 'has')!;
    const has = original.value as (this: Set<unknown>, value: unknown) => boolean;
    let lookups = 0;
    Object.defineProperty(Set.prototype, 'has', {
      ...original,
      value(this: Set<unknown>, value: unknown) {
        lookups++;
        return has.call(this, value);
      },
    });
    let found: Array<IdSource | undefined>;
    try {
      found = findIdAttributes(spans, undefined, lists);
    } finally {
      Object.defineProperty(Set.prototype, 'has', original);
    }
    expect(found[39]).toEqual({ id: 'last', attribute: 'suite39.id' });
    // Two wide spans of 1,000 keys and the last span's one key: 2,001, not 40 times that.
    expect(lookups).toBe(2001);
  });

  it('reads no span but the root when every list finds its first name whole there', () => {
    const root = span({ 'a.id': 'x', b: 'y', 's.id': 'z', 'http.case': 'h' });
    const others = new Proxy([root, span({})], {
      get(target, key, receiver) {
        if (key === '1') throw new Error('a span other than the root was read');
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(findIdAttributes(others, root, NAMES).map(f => f?.id)).toEqual(['x', 'y', 'z', 'h']);
  });
});

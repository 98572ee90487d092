import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { groupSpansByTrace } from './group-spans-by-trace.js';

/** The grouping as it was first written (a map of span ids per trace): the reference. */
function reference(spans: readonly SpanDigest[]): Map<string, SpanDigest[]> {
  const byTrace = new Map<string, Map<string, SpanDigest>>();
  for (const span of spans) {
    let trace = byTrace.get(span.traceId);
    if (!trace) byTrace.set(span.traceId, (trace = new Map()));
    trace.set(span.spanId, span);
  }
  return new Map([...byTrace].map(([id, trace]) => [id, [...trace.values()]]));
}

const span = (traceId: string, spanId: string, n: number): SpanDigest =>
  ({ traceId, spanId, name: `copy ${n}` }) as SpanDigest;

describe('groupSpansByTrace', () => {
  it('groups as a map of ids per trace would: first-seen order, the later copy of an id wins', () => {
    // Few trace ids and span ids, so traces pass 16 spans and ids repeat, within and across traces.
    const spans = fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 40 })), { maxLength: 300 });
    fc.assert(
      fc.property(spans, pairs => {
        const list = pairs.map(([t, s], n) => span(`t${t}`, `s${s}`, n));
        const got = groupSpansByTrace(list);
        expect([...got.keys()]).toEqual([...reference(list).keys()]);
        for (const [traceId, want] of reference(list)) expect(got.get(traceId)).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a repeated id once in a large trace, where it was first seen', () => {
    const list = Array.from({ length: 40 }, (_, i) => span('t', `s${i}`, i));
    const again = span('t', 's3', 99);
    const got = groupSpansByTrace([...list, again, span('t', 's39', 100)]).get('t')!;
    expect(got).toHaveLength(40);
    expect(got[3]).toBe(again);
    expect(got[39]!.name).toBe('copy 100');
  });
});

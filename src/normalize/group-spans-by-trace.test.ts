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
    if (!trace.has(span.spanId)) trace.set(span.spanId, span);
  }
  return new Map([...byTrace].map(([id, trace]) => [id, [...trace.values()]]));
}

const span = (traceId: string, spanId: string, n: number): SpanDigest =>
  ({ traceId, spanId, name: `copy ${n}` }) as SpanDigest;

describe('groupSpansByTrace', () => {
  it('groups as a map of ids per trace would: first-seen order, the first copy of an id kept', () => {
    // Few trace ids and span ids, so traces pass 64 spans (the scan's limit) and ids repeat,
    // within and across traces (drawn up to `maxLength`: test/setup/fast-check-sizes.ts).
    const spans = fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 200 })), { maxLength: 300 });
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

  it('reads a span id a few times a span in a trace of many, whatever the ids share (hostile)', () => {
    // 5,000 spans of one trace whose ids all end in one character and have one length, so the
    // inline check of the last character never passes one over: each id read is counted.
    let reads = 0;
    const n = 5_000;
    const list = Array.from({ length: n }, (_, i) => {
      const spanId = `${i.toString(16).padStart(15, '0')}a`;
      return {
        traceId: 't',
        get spanId() {
          reads++;
          return spanId;
        },
      } as SpanDigest;
    });
    expect(groupSpansByTrace(list).get('t')).toHaveLength(n);
    // A scan of the first 64 (2,016 reads), the index of them once, then one read a span: a
    // scan past 64 would be 12.5 million.
    expect(reads).toBeLessThanOrEqual(2 * n + 2_200);
  });

  it('keeps the first copy of a repeated id, where it was first seen, in a small trace and a large one', () => {
    for (const length of [40, 100]) {
      // 100 spans: past the scan's 64, where the ids are looked up in a map.
      const list = Array.from({ length }, (_, i) => span('t', `s${i}`, i));
      const got = groupSpansByTrace([
        ...list,
        span('t', 's3', 999),
        span('t', `s${length - 1}`, 1000),
      ]).get('t')!;
      expect(got).toEqual(list);
      expect(got[3]).toBe(list[3]);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { indexTrace } from '../normalize/indexed-trace.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { TraceNormalizations } from './trace-normalizations.js';

/** A trace whose one tool call is `lookup`. */
function normalizations(): TraceNormalizations {
  const spans = decodeOtlpJson(
    otlpRequest([
      { traceId: traceId(3), spanId: spanId(3, 1), name: 'invoke_agent a', startMs: 0, endMs: 9 },
      {
        traceId: traceId(3),
        spanId: spanId(3, 2),
        parentSpanId: spanId(3, 1),
        name: 'execute_tool lookup',
        startMs: 1,
        endMs: 2,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' },
      },
    ]),
  ).spans;
  return new TraceNormalizations(traceId(3), indexTrace(spans));
}

describe('TraceNormalizations', () => {
  it('normalizes once per alias map (equal maps share one), again for another test case id', () => {
    const n = normalizations();
    const none = new Map<string, string>();
    const first = n.of(none, 'case-1');
    expect(first.testCaseId).toBe('case-1');
    expect(first.toolSequence.map(c => c.name)).toEqual(['lookup']);
    // The same map, and an equal one: the same normalization.
    expect(n.of(none, 'case-1')).toBe(first);
    expect(n.of(new Map(), 'case-1')).toBe(first);
    // Another alias map: its own, kept for the next ask; the first is still found.
    const renamed = new Map([['lookup', 'find']]);
    const aliased = n.of(renamed, 'case-1');
    expect(aliased).not.toBe(first);
    expect(n.of(renamed, 'case-1')).toBe(aliased);
    expect(n.of(new Map([['lookup', 'find']]), 'case-1')).toBe(aliased);
    expect(n.of(none, 'case-1')).toBe(first);
    // Another test case id: normalized again, with it.
    const other = n.of(none, 'case-2');
    expect(other).not.toBe(first);
    expect(other.testCaseId).toBe('case-2');
    expect(n.of(none, 'case-2')).toBe(other);
  });
});

import { describe, expect, it } from 'vitest';
import {
  deepJson,
  emptyAttributesProtobuf,
  emptyScopesProtobuf,
  emptySpansJson,
  emptySpansProtobuf,
} from '../../test/helpers/amplified-bodies.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { checkJsonItems, DEFAULT_DECODE_LIMITS, type DecodeLimits } from './decode-limits.js';
import { decodeOtlpJson } from './decode-otlp-json.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';

const small: DecodeLimits = { maxSpans: 100, maxItems: 1000, maxRejectedDetails: 3 };

describe('decode limits', () => {
  it('refuses a protobuf request past maxSpans, empty spans counted', () => {
    expect(() => decodeOtlpProtobuf(emptySpansProtobuf(101), small)).toThrow(
      expect.objectContaining({
        code: 'SS_TRACE_INPUT_TOO_LARGE',
        message: expect.stringContaining('more than 100 spans (receiver.maxSpansPerRequest)'),
      }),
    );
  });

  it('reports the first maxRejectedDetails rejected spans and counts the rest', () => {
    const decoded = decodeOtlpProtobuf(emptySpansProtobuf(100), small);
    expect(decoded.spans).toEqual([]);
    expect(decoded.rejectedCount).toBe(100);
    expect(decoded.rejected.map(r => r.path)).toEqual([
      'resourceSpans[0].scopeSpans[0].spans[0]',
      'resourceSpans[0].scopeSpans[0].spans[1]',
      'resourceSpans[0].scopeSpans[0].spans[2]',
    ]);
  });

  it('refuses protobuf past maxItems: empty attributes, empty scopes', () => {
    for (const body of [emptyAttributesProtobuf(2000), emptyScopesProtobuf(2000)])
      expect(() => decodeOtlpProtobuf(body, small)).toThrow(
        expect.objectContaining({ code: 'SS_TRACE_INPUT_TOO_LARGE' }),
      );
    expect(decodeOtlpProtobuf(emptyAttributesProtobuf(900), small).spans).toHaveLength(1);
  });

  it('refuses a JSON text past maxItems before parsing, and parsed JSON past maxSpans', () => {
    expect(() => checkJsonItems(emptySpansJson(2000), small)).toThrow(
      expect.objectContaining({ code: 'SS_TRACE_INPUT_TOO_LARGE' }),
    );
    expect(() => checkJsonItems(emptySpansJson(2000).toString(), small)).toThrow(
      expect.objectContaining({ code: 'SS_TRACE_INPUT_TOO_LARGE' }),
    );
    expect(() => checkJsonItems(emptySpansJson(900), small)).not.toThrow();
    const parsed: unknown = JSON.parse(emptySpansJson(101).toString());
    expect(() => decodeOtlpJson(parsed, small)).toThrow(
      expect.objectContaining({ code: 'SS_TRACE_INPUT_TOO_LARGE' }),
    );
    const decoded = decodeOtlpJson(JSON.parse(emptySpansJson(50).toString()), small);
    expect([decoded.rejectedCount, decoded.rejected.length]).toEqual([50, 3]);
  });

  it('rejects a span whose attribute nests deeper than the limit, alone', () => {
    const decoded = decodeOtlpJson(JSON.parse(deepJson(40).toString()));
    expect(decoded.spans).toEqual([]);
    expect(decoded.rejected[0]!.reason).toContain('nested deeper than 32 levels');
  });

  it('decodes ordinary requests at the defaults unchanged', () => {
    const request = otlpRequest(
      Array.from({ length: 512 }, (_, i) => ({
        traceId: traceId(1),
        spanId: spanId(1, i + 1),
        name: `s${i}`,
        startMs: 0,
        endMs: 1,
        attributes: { 'gen_ai.tool.name': 'x', n: i },
      })),
    );
    expect(decodeOtlpJson(request, DEFAULT_DECODE_LIMITS).spans).toHaveLength(512);
  });
});

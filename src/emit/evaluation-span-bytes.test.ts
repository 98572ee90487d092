import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import { encodeEvaluationSpans } from './encode-evaluation-spans.js';
import { EVALUATION_REQUEST_BYTES, evaluationSpanBytes } from './evaluation-span-bytes.js';
import { toReadableSpan } from './otlp-evaluation-exporter.js';
import type { EvaluationAttributeValue, EvaluationSpan } from './score-to-span.js';

const ORIGIN = { serviceName: 'spanscore', scope: { name: 'spanscore', version: '0.1.0' } };
const RESOURCE = resourceFromAttributes({ 'service.name': 'spanscore' });

function span(
  text: string,
  list: string[],
  extra: Record<string, EvaluationAttributeValue> = {},
  turns = 0,
): EvaluationSpan {
  const event = { 'gen_ai.evaluation.name': 'rubric', 'gen_ai.evaluation.explanation': text };
  return {
    traceId: 'ab'.repeat(16),
    spanId: 'cd'.repeat(8),
    parentSpanId: 'ef'.repeat(8),
    name: 'evaluation rubric',
    startTimeUnixNano: 1_767_225_600_000_000_000n,
    endTimeUnixNano: 1_767_225_600_002_000_000n,
    attributes: { ...event, 'spanscore.tools_used': list, ...extra },
    link: { traceId: 'ab'.repeat(16), spanId: 'ef'.repeat(8) },
    turnLinks: Array.from({ length: turns }, (_, i) => ({
      traceId: '12'.repeat(16),
      spanId: '34'.repeat(8),
      turn: i + 1,
    })),
    event: { name: 'gen_ai.evaluation.result', timeUnixNano: 1n, attributes: event },
    statusCode: 2,
    statusMessage: text,
  };
}

/** Spans of every kind of value, ASCII to escapes, short strings and long. */
const CASES: Array<[string, EvaluationSpan]> = [
  ['small ASCII', span('ok', ['weather'])],
  ['no list, numbers', span('x', [], { a: -1, b: 2 ** 53 - 1, c: 0.5, d: true, e: -1e300 })],
  [
    'long ASCII',
    span(
      'a'.repeat(4096),
      Array.from({ length: 256 }, (_, i) => `tool-${i}`),
    ),
  ],
  ['3-byte text', span('€'.repeat(4096), ['€'.repeat(60), '€'.repeat(70)])],
  ['2-byte text', span('é'.repeat(63), ['é'.repeat(64)])],
  ['surrogate pairs', span('😀'.repeat(2048), ['😀'.repeat(31)])],
  ['lone surrogates', span('\ud800'.repeat(4096), ['\udc00'.repeat(40)])],
  ['control characters', span('\u0001'.repeat(4096), ['\u0000'.repeat(16)])],
  ['session turns', span('turns', ['t'], {}, 40)],
];

describe('evaluationSpanBytes', () => {
  it.each(CASES)(
    'with the request bytes, is never under a protobuf request (%s), and close',
    (_, s) => {
      const estimate = evaluationSpanBytes(s, 'http/protobuf');
      for (const n of [1, 3]) {
        const spans = Array.from({ length: n }, () => s);
        expect(encodeEvaluationSpans(spans, ORIGIN).length).toBeLessThanOrEqual(
          EVALUATION_REQUEST_BYTES + n * estimate,
        );
      }
      // within 10% (and 64 bytes) of what the span adds: requests are filled, not split early
      const alone = encodeEvaluationSpans([s], ORIGIN).length;
      const envelope = encodeEvaluationSpans([], ORIGIN).length;
      expect(estimate).toBeLessThanOrEqual((alone - envelope) * 1.1 + 64);
    },
  );

  it.each(CASES)('with the request bytes, is never under a JSON request (%s)', (_, s) => {
    const estimate = evaluationSpanBytes(s, 'http/json');
    for (const n of [1, 3]) {
      const spans = Array.from({ length: n }, () => toReadableSpan(s, RESOURCE));
      expect(JsonTraceSerializer.serializeRequest(spans)!.length).toBeLessThanOrEqual(
        EVALUATION_REQUEST_BYTES + n * estimate,
      );
    }
  });
});

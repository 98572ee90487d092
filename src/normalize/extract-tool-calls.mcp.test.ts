/** extractToolCalls on Traceloop's MCP instrumentation (hand-written spans in its shape). */
import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import {
  otlpRequest,
  spanId,
  traceId,
  type SpanInput,
} from '../../test/helpers/otlp-json-builder.js';
import { extractToolCalls } from './extract-tool-calls.js';

const T = traceId(1);
const S = (n: number): string => spanId(1, n);
const digests = (spans: Array<Omit<SpanInput, 'traceId'>>): SpanDigest[] =>
  decodeOtlpJson(otlpRequest(spans.map(s => ({ traceId: T, ...s })))).spans;

describe('Traceloop’s MCP instrumentation', () => {
  const mcpCall = (
    n: number,
    name: string,
    input: unknown,
    output: unknown,
    statusCode?: number,
  ): Omit<SpanInput, 'traceId'> => ({
    spanId: S(n),
    name: `${name}.tool`,
    startMs: n,
    endMs: n + 1,
    scope: '@traceloop/instrumentation-mcp',
    ...(statusCode !== undefined && { status: { code: statusCode, message: 'city unknown' } }),
    attributes: {
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': name,
      'traceloop.entity.input': JSON.stringify(input),
      'traceloop.entity.output': JSON.stringify(output),
    },
  });

  it('reads the request’s arguments and the result text, parsed when it is JSON', () => {
    const calls = extractToolCalls(
      digests([
        mcpCall(
          1,
          'get_weather',
          { tool_name: 'get_weather', arguments: { city: 'Paris' } },
          {
            result: '{"temperatureC":18}',
            is_error: false,
          },
        ),
        mcpCall(2, 'echo', { tool_name: 'echo', arguments: { text: 'hi' } }, { result: 'hi' }),
      ]),
    );
    expect(calls.map(c => [c.name, c.arguments, c.result, c.status])).toEqual([
      ['get_weather', { city: 'Paris' }, { temperatureC: 18 }, 'ok'],
      ['echo', { text: 'hi' }, 'hi', 'ok'],
    ]);
  });

  it('counts a call the server answered with isError as failed', () => {
    const calls = extractToolCalls(
      digests([
        mcpCall(
          1,
          'get_weather',
          { tool_name: 'get_weather', arguments: { city: 'Atlantis' } },
          { result: 'city unknown', is_error: true },
          2,
        ),
      ]),
    );
    expect(calls[0]).toMatchObject({
      status: 'error',
      error: 'city unknown',
      result: 'city unknown',
    });
  });

  it('leaves a withTool span’s output as it is, even when it has a result key', () => {
    const calls = extractToolCalls(
      digests([
        {
          ...mcpCall(1, 'lookup', { q: 'x' }, { result: '{"a":1}' }),
          scope: '@traceloop/node-server-sdk',
        },
      ]),
    );
    expect(calls[0]).toMatchObject({ arguments: { q: 'x' }, result: { result: '{"a":1}' } });
  });
});

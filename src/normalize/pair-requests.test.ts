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
import { SCAN_LIMIT } from './few-key-map.js';

const T = traceId(2);
const S = (n: number): string => spanId(2, n);
const digests = (spans: Array<Omit<SpanInput, 'traceId'>>): SpanDigest[] =>
  decodeOtlpJson(otlpRequest(spans.map(s => ({ traceId: T, ...s })))).spans;
const request = (n: number, startMs: number, id: string | undefined, name: string) => ({
  spanId: S(n),
  name: 'chat m',
  startMs,
  endMs: startMs + 1,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', ...(id && { id }), name, arguments: { n: String(n) } }],
      },
    ]),
  },
});
const run = (n: number, startMs: number, id: string | undefined, name: string) => ({
  spanId: S(n),
  name: `execute_tool ${name}`,
  startMs,
  endMs: startMs + 2,
  attributes: {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    ...(id && { 'gen_ai.tool.call.id': id }),
  },
});

// More calls than a scan serves: the lookups move into maps part-way through the trace.
const CALLS = SCAN_LIMIT + 8;

describe('pairing requests with runs, past the few keys found by a scan', () => {
  it('merges every request into the run of its call id, and keeps the one nothing ran', () => {
    const spans = [];
    for (let i = 0; i < CALLS; i++) {
      spans.push(request(2 * i + 1, 10 * i, `c${i}`, 'search'));
      spans.push(run(2 * i + 2, 10 * i + 2, `c${i}`, 'search'));
    }
    spans.push(request(1000, 10 * CALLS, 'never-ran', 'search'));
    const calls = extractToolCalls(digests(spans));
    expect(calls).toHaveLength(CALLS + 1);
    for (let i = 0; i < CALLS; i++) {
      expect(calls[i]).toMatchObject({
        callId: `c${i}`,
        source: 'executed',
        spanId: S(2 * i + 2),
        requestedBy: S(2 * i + 1),
        requestedArguments: { n: String(2 * i + 1) },
      });
    }
    expect(calls[CALLS]).toMatchObject({
      callId: 'never-ran',
      source: 'requested',
      spanId: S(1000),
      requestedBy: S(1000),
    });
  });

  it('pairs id-less requests one-to-one by name with id-less runs, each run taken once', () => {
    const spans = [];
    for (let i = 0; i < CALLS; i++) {
      spans.push(request(2 * i + 1, 10 * i, undefined, i % 2 ? 'odd' : 'even'));
      spans.push(run(2 * i + 2, 10 * i + 2, undefined, i % 2 ? 'odd' : 'even'));
    }
    const calls = extractToolCalls(digests(spans));
    expect(calls).toHaveLength(CALLS);
    for (let i = 0; i < CALLS; i++)
      expect(calls[i]).toMatchObject({
        name: i % 2 ? 'odd' : 'even',
        source: 'executed',
        spanId: S(2 * i + 2),
        requestedBy: S(2 * i + 1),
      });
  });

  it('merges a run reported twice by call id past the scan limit into one call', () => {
    const spans = [];
    for (let i = 0; i < CALLS; i++) spans.push(run(i + 1, 10 * i, `c${i}`, 'search'));
    // The first call reported again by a second instrumentation, after every other call.
    spans.push(run(500, 10 * CALLS, 'c0', 'search'));
    const calls = extractToolCalls(digests(spans));
    expect(calls.map(c => c.callId)).toEqual(Array.from({ length: CALLS }, (_, i) => `c${i}`));
  });
});

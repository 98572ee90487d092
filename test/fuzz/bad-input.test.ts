/**
 * The bad-input suite: every kind of malformed input the receiver (over real HTTP) and the file
 * reader can meet. Each case must end in a clear 4xx or error result, within a hang guard, and the
 * process must keep serving. Case counts are printed at the end (`fuzz: …`). Some of these repeat
 * smaller checks kept next to the code (decoder, receiver and grader tests); this file is the one
 * place that covers the whole list end to end.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpanscoreError } from '../../src/errors/spanscore-error.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { createGraderScorer } from '../../src/score/graders/create-grader-scorer.js';
import { emptySpansJson, emptySpansProtobuf, gzip } from '../helpers/amplified-bodies.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { agentTrace } from '../helpers/trace-builder.js';

const MAX_BODY = 4 * 1024 * 1024;
const HANG_GUARD_MS = 10_000;
const counts: Record<string, number> = {};
const count = (what: string): void => void (counts[what] = (counts[what] ?? 0) + 1);

let url = '';
let accepted: SpanDigest[] = [];
const app = createOtlpHttpReceiver({
  sink: { accept: spans => (accepted.push(...spans), Promise.resolve()) },
  maxBodyBytes: MAX_BODY,
});
beforeAll(async () => {
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app.close();
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  console.log(
    `fuzz: ${total} cases: ${Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
});

/** One POST with a hang guard; resolves with the status and the body text. */
async function post(
  body: Uint8Array | string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${url}/v1/traces`, {
    method: 'POST',
    body,
    headers,
    signal: AbortSignal.timeout(HANG_GUARD_MS),
  });
  return { status: res.status, text: await res.text() };
}

const validPb = Buffer.from(
  ProtobufTraceSerializer.serializeRequest(sdkAgentTrace('fuzz', ['get_weather', 'book_hotel']))!,
);
/** A one-span request whose `deep` attribute is the marker `{"stringValue":"MARKER"}`. */
const withMarker = JSON.stringify(
  otlpRequest([
    {
      traceId: traceId(3),
      spanId: spanId(3, 1),
      name: 'root',
      startMs: 0,
      endMs: 1,
      attributes: { deep: 'MARKER' },
    },
  ]),
);
const validJson = JSON.stringify(
  otlpRequest([
    { traceId: traceId(1), spanId: spanId(1, 1), name: 'root', startMs: 0, endMs: 5 },
    {
      traceId: traceId(1),
      spanId: spanId(1, 2),
      parentSpanId: spanId(1, 1),
      name: 'execute_tool get_weather',
      startMs: 1,
      endMs: 2,
      attributes: { 'gen_ai.tool.name': 'get_weather' },
    },
  ]),
);

describe('bad input: the receiver over HTTP', () => {
  it('random bytes, in every accepted content type and gzipped, get 200 or 400, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2000 }),
        fc.constantFrom('application/x-protobuf', 'application/json'),
        fc.boolean(),
        async (bytes, type, gzip) => {
          count('random bytes');
          const res = await post(gzip ? gzipSync(bytes) : bytes, {
            'content-type': type,
            ...(gzip && { 'content-encoding': 'gzip' }),
          });
          expect([200, 400]).toContain(res.status);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('truncated and mutated protobuf gets 200 (maybe partial) or 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.nat({ max: validPb.length - 1 }).map(n => validPb.subarray(0, n)),
          fc
            .array(
              fc.tuple(fc.nat({ max: validPb.length - 1 }), fc.integer({ min: 0, max: 255 })),
              {
                minLength: 1,
                maxLength: 8,
              },
            )
            .map(edits => {
              const b = Buffer.from(validPb);
              for (const [at, v] of edits) b[at] = v;
              return b;
            }),
        ),
        async body => {
          count('mutated protobuf');
          const res = await post(body, { 'content-type': 'application/x-protobuf' });
          expect([200, 400]).toContain(res.status);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('mutated and truncated JSON gets 200 (maybe partial) or 400 with a message', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.nat({ max: validJson.length - 1 }).map(n => validJson.slice(0, n)),
          fc
            .tuple(fc.nat({ max: validJson.length - 1 }), fc.string({ minLength: 1, maxLength: 3 }))
            .map(([at, s]) => validJson.slice(0, at) + s + validJson.slice(at + 1)),
        ),
        async body => {
          count('mutated JSON');
          const res = await post(body, { 'content-type': 'application/json' });
          expect([200, 400]).toContain(res.status);
          if (res.status === 400) expect(res.text.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('invalid ids and timestamps reject the span alone, naming the field', async () => {
    const badId = fc.oneof(
      fc.constant(''),
      fc.string({ maxLength: 40 }),
      fc.constant('0'.repeat(32)),
      fc.constant('zz'.repeat(16)),
      fc.constant('ab'.repeat(17)),
    );
    const badTime = fc.oneof(
      fc.constant('-1'),
      fc.constant('1e40'),
      fc.constant('99999999999999999999999'),
      fc.string({ maxLength: 10 }),
      fc.constant(null),
      fc.double(),
    );
    await fc.assert(
      fc.asyncProperty(
        badId,
        badId,
        badTime,
        fc.constantFrom('traceId', 'spanId', 'startTimeUnixNano'),
        async (tid, sid, time, broken) => {
          count('invalid ids and timestamps');
          const good = JSON.parse(validJson) as {
            resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>;
          };
          const span = good.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
          if (broken === 'traceId') span.traceId = tid;
          else if (broken === 'spanId') span.spanId = sid;
          else span.startTimeUnixNano = time;
          accepted = [];
          const res = await post(JSON.stringify(good), { 'content-type': 'application/json' });
          expect([200, 400]).toContain(res.status);
          // The other span of the request is never lost to its neighbour's bad field.
          if (res.status === 200 && res.text.includes('rejectedSpans')) {
            expect(accepted.map(s => s.name)).toContain('execute_tool get_weather');
            expect(res.text).toContain(`spans[0].${broken}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('deeply nested JSON: past 32 levels the span is rejected alone, past the body limit 413; a huge flat array is read or refused', async () => {
    for (const depth of [100, 1000, 10_000, 100_000]) {
      count('deep JSON');
      const nested = `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth)}{"stringValue":"x"}${'}]}}'.repeat(depth)}`;
      const body = withMarker.replace('{"stringValue":"MARKER"}', nested);
      const res = await post(body, { 'content-type': 'application/json' });
      // Past 32 levels the span is rejected alone (partial success), never recursed into.
      if (body.length > MAX_BODY) expect(res.status).toBe(413);
      else if (depth > 32) {
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toMatchObject({
          partialSuccess: {
            rejectedSpans: '1',
            errorMessage: expect.stringContaining('nested deeper than 32 levels'),
          },
        });
      }
      const arrays = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      count('deep JSON');
      const raw = await post(arrays, { 'content-type': 'application/json' });
      expect([400, 413]).toContain(raw.status);
    }
    count('huge JSON');
    const flat = `{"resourceSpans":[${'{},'.repeat(1_000_000)}{}]}`;
    const res = await post(flat, { 'content-type': 'application/json' });
    expect([200, 400, 413]).toContain(res.status);
  });

  it('wrong content types get 415 naming what is accepted', async () => {
    for (const type of [
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/grpc',
      '',
    ]) {
      count('wrong content type');
      const res = await post(validPb, type ? { 'content-type': type } : {});
      expect(res.status).toBe(415);
      expect(res.text).toMatch(/application\/x-protobuf|application\/json/);
    }
  });

  it('a gzip bomb and an oversized body get 413 before they are held in memory', async () => {
    count('gzip bomb');
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    const res = await post(bomb, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(res.status).toBe(413);
    count('oversized body');
    const big = await post(Buffer.alloc(MAX_BODY + 1, 0x20), {
      'content-type': 'application/json',
    });
    expect(big.status).toBe(413);
  });

  it('an enormous attribute value within the body limit is accepted whole, once', async () => {
    count('enormous attribute');
    const huge = 'x'.repeat(3 * 1024 * 1024);
    accepted = [];
    const res = await post(
      JSON.stringify(
        otlpRequest([
          {
            traceId: traceId(2),
            spanId: spanId(2, 1),
            name: 'root',
            startMs: 0,
            endMs: 1,
            attributes: { 'gen_ai.tool.call.result': huge },
          },
        ]),
      ),
      { 'content-type': 'application/json' },
    );
    expect(res.status).toBe(200);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.attributes['gen_ai.tool.call.result']).toHaveLength(huge.length);
  });

  it('is still up and decoding exactly after all of it', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    accepted = [];
    expect((await post(validPb, { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    expect(accepted.map(s => s.name).sort()).toEqual([
      'execute_tool book_hotel',
      'execute_tool get_weather',
      'invoke_agent',
    ]);
  });
});

describe('bad input: the file reader', () => {
  it('random, truncated and mutated files of every extension give problems naming the file, never a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-fuzz-files-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 3000 }).map(b => Buffer.from(b)),
          fc.nat({ max: validPb.length - 1 }).map(k => validPb.subarray(0, k)),
          fc.nat({ max: validJson.length - 1 }).map(k => Buffer.from(validJson.slice(0, k))),
        ),
        fc.constantFrom('.json', '.jsonl', '.pb', '.json.gz', '.pb.gz', '.ndjson'),
        async (bytes, ext) => {
          count('trace files');
          const file = join(dir, `case-${n++}${ext}`);
          writeFileSync(file, ext.endsWith('.gz') && bytes.length % 2 ? gzipSync(bytes) : bytes);
          const result = await readTraceFiles([file], { maxDecompressedBytes: 1024 * 1024 });
          for (const problem of result.problems) expect(problem.file).toBe(file);
          for (const span of result.spans) expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a missing path and a directory of garbage are named; a gzip bomb is refused', async () => {
    count('trace files');
    const missing = await readTraceFiles(['/nonexistent/spanscore-fuzz.json']).catch(
      e => e as Error,
    );
    expect(
      isSpanscoreError(missing)
        ? missing.code === 'SS_INPUT_NOT_FOUND'
        : (missing as { problems: unknown[] }).problems.length > 0,
    ).toBe(true);
    count('gzip bomb file');
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-fuzz-bomb-'));
    writeFileSync(join(dir, 'bomb.json.gz'), gzipSync(Buffer.alloc(32 * 1024 * 1024, 0x20)));
    const bomb = await readTraceFiles([dir], { maxDecompressedBytes: 1024 * 1024 });
    expect(bomb.spans).toHaveLength(0);
    expect(bomb.problems[0]!.message).toMatch(/decompress|exceeds/i);
  });

  it('an amplified file (32 KB of gzip, 16 million empty spans) is refused by the request limits, naming the file', async () => {
    count('amplified trace file');
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-fuzz-amplified-'));
    writeFileSync(join(dir, 'spans.pb.gz'), gzip(emptySpansProtobuf(16_000_000)));
    writeFileSync(join(dir, 'spans.json.gz'), gzip(emptySpansJson(10_000_000)));
    const read = await readTraceFiles([dir]);
    expect(read.spans).toHaveLength(0);
    expect(read.problems.map(p => [p.file.slice(dir.length + 1), p.message])).toEqual([
      [
        'spans.json.gz',
        // The 4,000,001st `{` or `[`: 6 in the 43-byte head, then one per 3-byte `{},`.
        'the request holds more than 4000000 nested items (resources, scopes, spans, events, attributes and values; receiver.maxItemsPerRequest): send smaller batches (refused at byte 12000025 of 30000048)',
      ],
      [
        'spans.pb.gz',
        // The 16,385th span's tag (a 10-byte head, 2 bytes a span), of 32,000,010 bytes.
        'the request holds more than 16384 spans (receiver.maxSpansPerRequest): send smaller batches (refused at byte 32779 of 32000010)',
      ],
    ]);
  });
});

describe('bad input: a grader pattern built to backtrack catastrophically', () => {
  it('regex_match runs it in linear time (RE2) on a long submission', async () => {
    const scorer = createGraderScorer('regex_match');
    for (const pattern of ['(a+)+$', '(a|aa)*b', '(x+x+)+y', '^(\\w+\\s?)*$']) {
      count('evil regex');
      const options = scorer.parseOptions({ groundTruth: pattern, extractor: 'last_assistant' });
      const result = await scorer.score({
        trace: agentTrace(['noop'], { answer: `${'a'.repeat(50_000)}!` }),
        testCase: undefined,
        options,
        aliases: new Map(),
      });
      expect(result.status).toBe('scored');
    }
  });
});

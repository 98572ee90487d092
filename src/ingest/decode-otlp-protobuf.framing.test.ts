import { describe, expect, it } from 'vitest';
import { field, varint } from '../../test/helpers/protobuf-bytes.js';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { decodeOtlpProtobufLogs } from './decode-otlp-logs-protobuf.js';
import { DEFAULT_DECODE_LIMITS } from './decode-limits.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';
import { readAttributeRecords, SPAN_ATTRIBUTES_FIELD } from './protobuf-key-value.js';
import { readAttributes } from './read-attributes.js';
import { ownRecords } from '../queue/trace-byte-buffer.js';

/**
 * Hostile framing, written by hand: a nested message (a status, an event, a span, a scope) whose
 * last field runs past its own end. The decoder walks such a message field by field, and the
 * span's attribute range is read again later, skipping the fields between its records by their
 * lengths: bytes a field ran into were then read as attribute records that no check had seen (an
 * item budget of 1,000 passed over by an array of 2,000 values, a value nested past the depth
 * limit, and a value that read the next span's records once the memory driver had moved a trace's
 * records into one buffer). Each is now refused where it is found.
 */

const TRACE = Buffer.alloc(16, 0xab);
const spanId = (n: number): Buffer => Buffer.from([0, 0, 0, 0, 0, 0, 0, n]);
const stringValue = (s: string): Buffer => field(1, Buffer.from(s));
const keyValue = (key: string, anyValue: Buffer): Buffer =>
  Buffer.concat([field(1, Buffer.from(key)), field(2, anyValue)]);
const attribute = (key: string, anyValue: Buffer): Buffer => field(9, keyValue(key, anyValue));
const request = (...spans: Buffer[]): Buffer =>
  field(1, field(2, Buffer.concat(spans.map(s => field(2, s)))));

/**
 * A status (field 15) two bytes long, `12 LEN`: its message's length, whose bytes (`hidden`)
 * follow outside the status. A walk of the span that skips the status by its length reads
 * `hidden` as the span's next fields.
 */
const statusHiding = (hidden: Buffer): Buffer => {
  const inner = Buffer.concat([Buffer.from([0x12]), varint(hidden.length)]);
  return Buffer.concat([Buffer.from([0x7a]), varint(inner.length), inner, hidden]);
};

/** A span whose status hides `hidden` between two attribute records. */
const spanHiding = (n: number, hidden: Buffer): Buffer =>
  Buffer.concat([
    field(1, TRACE),
    field(2, spanId(n)),
    field(5, Buffer.from('tool')),
    attribute('a', stringValue('1')),
    statusHiding(hidden),
    attribute('b', stringValue('2')),
  ]);

const plainSpan = (n: number): Buffer =>
  Buffer.concat([field(1, TRACE), field(2, spanId(n)), attribute('k', stringValue('v'))]);

describe('decodeOtlpProtobuf: a field past the end of its message', () => {
  it('refuses a span whose status runs past its end, however the hidden bytes would read', () => {
    // The hidden record's value: an array of 2,000 empty lists, against an item budget of 1,000.
    const values = Buffer.concat(
      Array.from({ length: 2000 }, () => field(1, field(6, Buffer.alloc(0)))),
    );
    const many = attribute('many', field(5, values));
    let deep = stringValue('x');
    for (let i = 0; i < 40; i++) deep = field(5, field(1, deep)); // past the 32 levels allowed
    const out = decodeOtlpProtobuf(
      request(spanHiding(1, many), spanHiding(2, attribute('deep', deep)), plainSpan(3)),
      { ...DEFAULT_DECODE_LIMITS, maxItems: 1000 },
    );
    expect(out.spans.map(s => [s.spanId, readAttributes(s)])).toEqual([
      ['0000000000000003', { k: 'v' }],
    ]);
    expect(out.rejected.map(r => r.reason)).toEqual([
      expect.stringMatching(/^status: a field runs \d+ bytes past the end of it$/),
      expect.stringMatching(/^status: a field runs \d+ bytes past the end of it$/),
    ]);
    expect(out.rejected.map(r => r.path)).toEqual([
      'resourceSpans[0].scopeSpans[0].spans[0]',
      'resourceSpans[0].scopeSpans[0].spans[1]',
    ]);
  });

  it("never lets one span's attribute read the next span's records after the memory driver moves them", () => {
    // Span 1 hides a record whose string value is as long as its own `b` record and span 2's
    // records together: read after both moved into one buffer, it held span 2's secret.
    const secret = attribute('secret', stringValue('of span 2'));
    const tail = attribute('b', stringValue('2')).length + secret.length;
    const hidden = Buffer.from([0x4a, 7 + tail, 0x0a, 0x01, 0x6b, 0x12, 2 + tail, 0x0a, tail]);
    const second = Buffer.concat([field(1, TRACE), field(2, spanId(2)), secret]);
    const out = decodeOtlpProtobuf(request(spanHiding(1, hidden), second));
    ownRecords(out.spans, 0);
    expect(out.spans.map(s => [s.spanId, readAttributes(s)])).toEqual([
      ['0000000000000002', { secret: 'of span 2' }],
    ]);
    expect(out.rejected).toHaveLength(1);
  });

  it('refuses a span whose event, or whose own last field, runs past its end', () => {
    const eventRunning = Buffer.concat([
      field(1, TRACE),
      field(2, spanId(1)),
      // An event (field 11) of 2 bytes, `12 05`: a name 5 bytes long that starts past its end.
      Buffer.from([0x5a, 0x02, 0x12, 0x05]),
      field(5, Buffer.from('tool')),
    ]);
    // A span that ends inside its name: the name's length runs on into the next span's bytes.
    const nameRunning = Buffer.concat([
      field(1, TRACE),
      field(2, spanId(2)),
      Buffer.from([0x2a, 0x04]),
    ]);
    const out = decodeOtlpProtobuf(request(eventRunning, nameRunning, plainSpan(3)));
    expect(out.spans.map(s => s.spanId)).toEqual(['0000000000000003']);
    expect(out.rejected.map(r => r.reason)).toEqual([
      expect.stringMatching(/^event: a field runs \d+ bytes past the end of it$/),
      expect.stringMatching(/^span: a field runs \d+ bytes past the end of it$/),
    ]);
  });

  it('refuses a request whose scope spans or resource run past their end', () => {
    // The scope (field 1 of ScopeSpans) 2 bytes long, `0a 03`: a name 3 bytes long past its end.
    const scopeRunning = field(
      1,
      field(2, Buffer.concat([Buffer.from([0x0a, 0x02, 0x0a, 0x03]), field(2, plainSpan(1))])),
    );
    const resourceRunning = field(
      1,
      Buffer.concat([Buffer.from([0x0a, 0x02, 0x2a, 0x09]), field(2, field(2, plainSpan(1)))]),
    );
    for (const body of [scopeRunning, resourceRunning]) {
      let error: unknown;
      try {
        decodeOtlpProtobuf(body);
      } catch (e) {
        error = e;
      }
      expect(isSpanscoreError(error) && error.code).toBe('SS_TRACE_INPUT_INVALID');
      expect((error as Error).message).toMatch(
        /(scope|resource): a field runs \d+ bytes past the end of it/,
      );
    }
  });

  it('refuses a length past 2^32 rather than reading its low 32 bits', () => {
    // A name whose length is 2^32 + 4 (`84 80 80 80 10`): cut to 32 bits it read as 4, 'tool'.
    const span = Buffer.concat([
      field(1, TRACE),
      field(2, spanId(1)),
      Buffer.from([0x2a, 0x84, 0x80, 0x80, 0x80, 0x10]),
      Buffer.from('tool'),
    ]);
    expect(() => decodeOtlpProtobuf(request(span))).toThrow(/length 4294967300 runs past the end/);
  });
});

describe('readAttributeRecords', () => {
  it('reads nothing past the end of the range it is given', () => {
    // A record whose value claims 6 bytes where the range holds 2: past the range, `k2` and `v`.
    const records = Buffer.concat([
      Buffer.from([0x4a, 0x07, 0x0a, 0x01, 0x6b, 0x12, 0x02, 0x0a, 0x06]),
    ]);
    const buf = Buffer.concat([records, keyValue('k2', stringValue('v'))]);
    expect(() => readAttributeRecords(buf, 0, records.length, SPAN_ATTRIBUTES_FIELD)).toThrow(
      /runs past the end/,
    );
  });
});

describe('decodeOtlpProtobufLogs: a field past the end of its message', () => {
  it('refuses a log record whose last field runs past its end, and keeps the next', () => {
    const good = Buffer.concat([field(9, TRACE), field(12, Buffer.from('gen_ai.choice'))]);
    // `62 05`: an event name 5 bytes long, past the record's end.
    const running = Buffer.concat([field(9, TRACE), Buffer.from([0x62, 0x05])]);
    const body = field(1, field(2, Buffer.concat([field(2, running), field(2, good)])));
    const out = decodeOtlpProtobufLogs(body);
    expect(out.rejected.map(r => r.reason)).toEqual([
      expect.stringMatching(/^logRecord: a field runs \d+ bytes past the end of it$/),
    ]);
    expect(out.spans.map(s => s.traceId)).toEqual(['ab'.repeat(16)]);
  });
});

import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { contentAttribute } from '../normalize/content-attribute.js';
import { JsonTextWriter } from './json-text-writer.js';
import { MAX_CONTENT_CHARS, type StoredToolCall } from './stored-result.js';
import {
  compactRecord,
  compactRecordLine,
  decodeCompactRecord,
  type RecordFields,
} from './compact-run-record.js';
import { decodeCalls, encodeCalls } from './compact-tool-calls.js';

const call: StoredToolCall = {
  name: 'search_flights',
  rawName: 'search_flights',
  source: 'executed',
  status: 'ok',
  outcome: 'ok',
  error: null,
  spanId: 'f9cee83a1bac05d3',
  convention: 'gen-ai-execute-tool',
  agent: 'travel',
  durationMs: 0.028,
  arguments: '{"city":"Lisbon","date":"2026-12-01"}',
  result: '{"status":"ok","items":[{"id":"TP541","price":129.5}]}',
};

const record: RecordFields = {
  traceId: 'a'.repeat(32),
  state: 'scored',
  reason: null,
  testCaseId: 'book',
  testCaseIdAttribute: 'spanscore.test_case.id',
  serviceName: 'agent',
  serviceVersion: null,
  deploymentEnvironment: null,
  diagnostics: [],
  matched: ['travel / book'],
  awaitingJudge: [],
  updatedAtUnixMs: 1_795_894_422_753,
  toolCalls: [call],
  contentKept: true,
  agents: [
    { agent: 'travel', handoff: null },
    { agent: 'billing', handoff: 'transfer_to_billing' },
  ],
  receivedAtUnixMs: null,
};

const fromLine = (line: string, key: string): RecordFields =>
  decodeCompactRecord(JSON.parse(line) as Record<string, unknown>, key);

describe('layout 2 run record line', () => {
  it('gives the record back exactly, in the order layout 1 writes it', () => {
    const line = compactRecordLine(record, record.traceId);
    const read = fromLine(line, record.traceId);
    expect(read).toEqual(record);
    expect(JSON.stringify(read)).toBe(JSON.stringify(record));
    // Defaults and the trace id its key names are left out.
    expect(line).not.toContain('null,');
    expect(line).not.toContain(record.traceId);
    expect(line.length).toBeLessThan(JSON.stringify(record).length * 0.6);
  });

  it('keeps what differs from the defaults: another key, a failed record, session and content off', () => {
    const failed: RecordFields = {
      ...record,
      state: 'failed',
      reason: 'scoring failed',
      testCaseId: null,
      testCaseIdAttribute: null,
      toolCalls: [],
      contentKept: false,
      awaitingJudge: ['judge'],
      session: {
        id: 's',
        part: 2,
        traceIds: ['t1'],
        cut: null,
        cutReason: null,
        continues: 'max_traces',
      },
    };
    delete failed.agents;
    expect(fromLine(compactRecordLine(failed, 'other key'), 'other key')).toEqual(failed);
    const attributed = { ...record, testCaseIdAttribute: 'test.id' };
    expect(fromLine(compactRecordLine(attributed, 'k'), 'k')).toEqual(attributed);
    const unattributed = { ...record, testCaseIdAttribute: null };
    expect(fromLine(compactRecordLine(unattributed, 'k'), 'k')).toEqual(unattributed);
  });
});

describe('layout 2 tool calls', () => {
  const roundTrip = (calls: StoredToolCall[]): StoredToolCall[] =>
    decodeCalls(JSON.parse(JSON.stringify(encodeCalls(calls))));

  it('round-trips calls with every optional field, defaults and not', () => {
    const calls: StoredToolCall[] = [
      call,
      {
        ...call,
        name: 'book',
        rawName: 'Book',
        source: 'requested',
        status: 'error',
        outcome: 'refused',
        error: 'boom',
        convention: 'gen-ai-messages',
        argumentProblems: ['/city: must be string'],
        offered: false,
        schemaSource: { kind: 'config' } as StoredToolCall['schemaSource'],
        repeated: true,
        turn: 3,
      },
      // An older record's call: no outcome, no agent, no duration, no content.
      {
        name: 'search_flights',
        rawName: 'search_flights',
        source: 'executed',
        status: 'error',
        error: null,
        spanId: '01',
        convention: 'gen-ai-execute-tool',
      },
    ];
    expect(roundTrip(calls)).toEqual(calls);
  });

  it("lists a call's missing defaulted fields in `-`, in the defaults' order", () => {
    const first = { ...call, convention: 'gen-ai-messages', agent: 'planner' };
    const bare = { name: 'lookup', spanId: '02' } as unknown as StoredToolCall;
    const other = (encodeCalls([first, bare]).l as unknown[][])[1]![5];
    expect(other).toEqual({
      '-': ['rawName', 'source', 'status', 'outcome', 'error', 'convention', 'agent'],
    });
    expect(roundTrip([first, bare])).toEqual([first, bare]);
  });

  it('keeps content text exactly whatever it holds: JSON values only where they write it back', () => {
    const texts = [
      '{"a":1}',
      '{"b": 1}',
      '{"2":1,"1":2}',
      '[1.0]',
      '"a string"',
      '5',
      'null',
      'plain text',
      '{"__proto__":{"x":1}}',
      '{"cut":"…',
      '',
    ];
    const calls = texts.map((text, i) => ({
      ...call,
      spanId: String(i),
      arguments: text,
      result: text,
    }));
    const read = roundTrip(calls);
    expect(read.map(c => c.arguments)).toEqual(texts);
    expect(read.map(c => c.result)).toEqual(texts);
    // Written as JSON values, not escaped strings, where that reads back the same.
    expect(JSON.stringify(encodeCalls([call]))).toContain('{"city":"Lisbon"');
  });
});

describe('layout 2 line text', () => {
  it("is JSON.stringify's text of the line's object, whatever the record holds", () => {
    const odd: StoredToolCall[] = [
      call,
      { ...call, durationMs: NaN, spanId: 'nan' },
      { ...call, durationMs: Infinity, agent: undefined, arguments: 'tab\t "q" é 中 😀 \ud800' },
      {
        name: 'refused',
        rawName: 'Refused',
        source: 'requested',
        status: 'error',
        error: 'boom\n',
        spanId: '02',
        convention: 'other',
        turn: 2,
        repeated: true,
      },
    ];
    const values = {
      ...call,
      arguments: { city: 'Lisbon', nested: [1, 2.5, null, { deep: true }] },
      result: [{ id: 'TP541' }],
    } as unknown as StoredToolCall;
    const records: RecordFields[] = [
      record,
      { ...record, toolCalls: odd, diagnostics: [{ code: 'c', message: 'é "m"' }] },
      { ...record, toolCalls: [values], receivedAtUnixMs: 5, traceId: 'other' },
      {
        ...record,
        toolCalls: [],
        agents: undefined,
        session: {
          id: 's',
          part: 1,
          traceIds: ['a', 'b'],
          cut: 'max_traces',
          cutReason: 'r',
          continues: null,
        },
      },
      { ...record, 0: 'index key first' } as RecordFields,
    ];
    for (const r of records)
      for (const contentAsJson of [true, false])
        for (const withReceived of [true, false]) {
          const options = { contentAsJson, withReceived };
          expect(compactRecordLine(r, r.traceId, options)).toBe(
            JSON.stringify(compactRecord(r, r.traceId, options)),
          );
          expect(compactRecordLine(r, 'key', options)).toBe(
            JSON.stringify(compactRecord(r, 'key', options)),
          );
        }
  });
});

describe('a call content copied from the JSON text it was parsed from (contentAttribute)', () => {
  const key = record.traceId;
  /** The line the memory store writes of a record whose call holds `args` as a value. */
  const lineWith = (args: unknown): string =>
    compactRecordLine({ ...record, toolCalls: [{ ...call, arguments: args as object }] }, key, {
      contentAsJson: false,
    });
  const argumentsOf = (line: string) => fromLine(line, key).toolCalls[0]!.arguments;
  const parsed = (text: string): unknown => contentAttribute({ a: text }, 'a');

  it('reads back as JSON.stringify of the value, whatever spacing the text had (fuzzed)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.array(fc.jsonValue()), fc.dictionary(fc.string(), fc.jsonValue())),
        fc.integer({ min: 0, max: 4 }),
        (v, indent) => {
          // Spaced as JSON.stringify indents, on one line (its line breaks are only between
          // tokens), so that the text copied is not the value's own JSON.
          const value = parsed(JSON.stringify(v, null, indent).replace(/\n/g, ' '));
          const line = lineWith(value);
          expect(argumentsOf(line)).toBe(JSON.stringify(value));
          // A line still: layout 2's stream entries are split at line breaks.
          expect(line).not.toMatch(/[\n\r]/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads back as the value: repeated keys, escapes, index keys first, separators kept raw', () => {
    const texts = [
      '{ "a" : 1, "a" : 2 }',
      '{"s":"\\u0041\\/\\n\\"","t":"\\ud800"}',
      '{"b":1,"10":2,"2":3}',
      '{"sep":"\u2028\u2029"}',
      '[1.50, -0, 0.0000001, 100000000000000000000000]',
    ];
    for (const text of texts) {
      const value = parsed(text);
      expect(argumentsOf(lineWith(value)), text).toBe(JSON.stringify(value));
    }
  });

  it('writes the value, not the text, when the text breaks lines between its tokens', () => {
    for (const text of ['{\n"a":1}', '{"a":\r1}', '[1,\r\n2]', '{ "s" : "x" }\n']) {
      const value = parsed(text);
      const line = lineWith(value);
      // A line still: layout 2's stream entries are split at line breaks.
      expect(line, JSON.stringify(text)).not.toMatch(/[\n\r]/);
      expect(argumentsOf(line)).toBe(JSON.stringify(value));
    }
  });

  it('copies the text in one write, not its keys and strings one by one', () => {
    const keys = Array.from({ length: 100 }, (_, i) => `"k${i}":"v${i}"`);
    const value = parsed(`{${keys.join(',')}}`);
    const strings = vi.spyOn(JsonTextWriter.prototype, 'string');
    const copies = vi.spyOn(JsonTextWriter.prototype, 'json');
    try {
      const line = lineWith(value);
      const copied = strings.mock.calls.length;
      // The same value without its text: each key and string written (200 more).
      lineWith(structuredClone(value));
      expect(copies).toHaveBeenCalledTimes(1);
      expect(copied).toBeLessThan(40);
      expect(strings.mock.calls.length - copied).toBeGreaterThanOrEqual(200);
      expect(argumentsOf(line)).toBe(JSON.stringify(value));
    } finally {
      strings.mockRestore();
      copies.mockRestore();
    }
  });

  it('writes the value where the text is not ASCII, breaks lines or is past MAX_CONTENT_CHARS', () => {
    const copies = vi.spyOn(JsonTextWriter.prototype, 'json');
    try {
      // Not ASCII: tried (a native write) and written as the value, escaped as the writer does.
      const zurich = parsed('{"city":"Zürich","s":"\\ud83d\\ude00"}');
      expect(argumentsOf(lineWith(zurich))).toBe('{"city":"Zürich","s":"😀"}');
      expect(copies).toHaveReturnedWith(false);
      copies.mockClear();
      // Line breaks between tokens: the value written, the line one line.
      const broken = lineWith(parsed('{\r\n  "city": "Lisbon"\n}'));
      expect(copies).toHaveReturnedWith(false);
      expect(broken).not.toMatch(/[\n\r]/);
      expect(argumentsOf(broken)).toBe('{"city":"Lisbon"}');
      copies.mockClear();
      // Past MAX_CONTENT_CHARS of spacing: the value written (7 characters), never the text.
      const padded = parsed(`{"a":1${' '.repeat(MAX_CONTENT_CHARS)}}`);
      const line = lineWith(padded);
      expect(copies).not.toHaveBeenCalled();
      expect(argumentsOf(line)).toBe('{"a":1}');
      expect(line.length).toBeLessThan(lineWith(parsed('{"a":1}')).length + 1);
    } finally {
      copies.mockRestore();
    }
  });
});

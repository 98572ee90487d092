import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseWellFormedJson } from './parse-well-formed-json.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseWellFormedJson', () => {
  it.each([
    ['a lone high half', String.raw`["a\ud800b"]`, ['a\ufffdb']],
    ['a lone low half', String.raw`["\udc00"]`, ['\ufffd']],
    ['a pair, kept', String.raw`["\ud83d\ude00", "\uD83D\uDE00"]`, ['😀', '😀']],
    ['a high half, then a pair', String.raw`["\ud83d\ud83d\ude00"]`, ['\ufffd😀']],
    ['an escaped backslash, then text', String.raw`["\\ud800"]`, ['\\ud800']],
    ['an escaped backslash, then a lone half', String.raw`["\\\ud800"]`, ['\\\ufffd']],
    ['a high half, then an escaped backslash', String.raw`["\ud83d\\ude00"]`, ['\ufffd\\ude00']],
    ['text, then a lone low half', String.raw`["\\ud83d\ude00"]`, ['\\ud83d\ufffd']],
    ['a key', String.raw`{"k\ud800": "v\udfff"}`, { 'k\ufffd': 'v\ufffd' }],
  ])('%s', (_what, text, expected) => {
    expect(parseWellFormedJson(text)).toEqual(expected);
  });

  it('parses a body whose only surrogates are escaped pairs in one JSON.parse without a reviver', () => {
    // An encoder that escapes all non-ASCII text (Python's json.dumps does by default) writes each
    // emoji as an escaped pair: 500 spans of 12 attributes, one emoji among them.
    const spans = Array.from({ length: 500 }, (_, i) => ({
      spanId: String(i),
      attributes: Array.from({ length: 12 }, (_, j) => ({
        key: `k${j}`,
        value: { stringValue: i === 7 && j === 3 ? 'done 😀' : `v${i}.${j}` },
      })),
    }));
    const text = JSON.stringify({ spans }).replace('😀', String.raw`\ud83d\ude00`);
    const parse = vi.spyOn(JSON, 'parse');
    expect(parseWellFormedJson(text)).toEqual({ spans });
    // Each value given to a reviver would be visited again: none is.
    expect(parse.mock.calls.map(call => call.length > 1 && call[1] !== undefined)).toEqual([false]);
  });
});

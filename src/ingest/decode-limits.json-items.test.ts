import { describe, expect, it } from 'vitest';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { checkJsonItems, DEFAULT_DECODE_LIMITS, type DecodeLimits } from './decode-limits.js';

/**
 * JSON built to cost `JSON.parse` memory in few bytes (64 MiB inflate from a 65 KB gzip body):
 * refused before it is parsed, and after a bounded part of it was read (the byte it stopped at is
 * in the message). Counted work, never time.
 */
const limits: DecodeLimits = { ...DEFAULT_DECODE_LIMITS, maxItems: 10_000 };

/** Where the check refused `text`, or `undefined` when it passed. */
function refusedAt(text: string): number | undefined {
  for (const form of [text, Buffer.from(text)]) {
    try {
      checkJsonItems(form, limits);
    } catch (error) {
      if (!isSpanscoreError(error) || error.code !== 'SS_TRACE_INPUT_TOO_LARGE') throw error;
      const at = /refused at byte (\d+) of/.exec(error.message);
      if (form === text) continue; // both forms refuse; the byte is read from the second
      return Number(at![1]);
    }
  }
  return undefined;
}

describe('checkJsonItems', () => {
  it('counts the elements of a flat array: 40,000 numbers refused within the first 10,001', () => {
    // Counting objects and arrays alone, this was 3 items; 33.5 million of them ran serve out of heap.
    const text = `{"resourceSpans":[],"x":[${Array(40_000).fill('0').join(',')}]}`;
    const at = refusedAt(text);
    expect(at).toBeDefined();
    expect(at!).toBeLessThan(25 + 2 * 10_001);
  });

  it("counts an object's members past its 64th", () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `"k${i}":0`).join(',');
    expect(refusedAt(`{"x":{${members}}}`)).toBeDefined();
    // A request of ordinary objects (a dozen members each) within the limit passes.
    const span = `{"traceId":"${'a'.repeat(32)}","spanId":"${'b'.repeat(16)}","name":"n","kind":1,"attributes":[{"key":"k","value":{"stringValue":"v"}}]}`;
    const spans = Array(1_500).fill(span).join(',');
    expect(refusedAt(`{"resourceSpans":[{"scopeSpans":[{"spans":[${spans}]}]}]}`)).toBeUndefined();
  });

  it('counts nothing inside strings, escaped quotes included', () => {
    const inString = `"${'[{,'.repeat(20_000)}\\"[[["`;
    expect(refusedAt(`{"resourceSpans":[],"x":${inString}}`)).toBeUndefined();
  });
});

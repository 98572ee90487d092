import { describe, expect, it } from 'vitest';
import { MAX_CONTENT_CHARS } from '../results/stored-result.js';
import {
  contentAttribute,
  forgetCallSourceTexts,
  jsonSourceText,
  MAX_SOURCE_TEXT_CHARS,
} from './content-attribute.js';
import { INPUT_BOUNDS } from './input-bounds.js';

describe('contentAttribute', () => {
  it('parses JSON text as jsonAttribute does and keeps the text of an object or array', () => {
    const text = '{ "city" : "Lisbon",\n "dates": ["2026-12-01"] }';
    const args = contentAttribute({ a: text }, 'a');
    expect(args).toEqual({ city: 'Lisbon', dates: ['2026-12-01'] });
    expect(jsonSourceText(args)).toBe(text);
    const list = contentAttribute({ a: '[1,2]' }, 'a');
    expect(jsonSourceText(list)).toBe('[1,2]');
    // A value parsed from the same text twice is two values, each with its text.
    expect(jsonSourceText(contentAttribute({ a: text }, 'a'))).toBe(text);
  });

  it('keeps no text for what is not an object or array parsed from text', () => {
    // A JSON string, plain text, a number, a structured OTLP value (kvlist, array), absent.
    expect(contentAttribute({ a: '"quoted"' }, 'a')).toBe('quoted');
    expect(contentAttribute({ a: 'plain words' }, 'a')).toBe('plain words');
    expect(contentAttribute({ a: 42 }, 'a')).toBe(42);
    const structured = { city: 'Lisbon' };
    expect(contentAttribute({ a: structured }, 'a')).toBe(structured);
    expect(jsonSourceText(structured)).toBeUndefined();
    expect(contentAttribute({ a: null }, 'a')).toBeUndefined();
    expect(contentAttribute({}, 'a')).toBeUndefined();
    // Not JSON: stays the text it was, which is not a parsed value's source.
    expect(contentAttribute({ a: '{"city":' }, 'a')).toBe('{"city":');
    expect(jsonSourceText('{"city":')).toBeUndefined();
  });

  it('keeps no text longer than MAX_SOURCE_TEXT_CHARS, which is more than any store copies', () => {
    expect(MAX_SOURCE_TEXT_CHARS).toBeGreaterThanOrEqual(MAX_CONTENT_CHARS);
    const long = `{"a":"${'x'.repeat(MAX_SOURCE_TEXT_CHARS - 7)}"}`;
    expect(long.length).toBe(MAX_SOURCE_TEXT_CHARS + 1);
    expect(jsonSourceText(contentAttribute({ a: long }, 'a'))).toBeUndefined();
    const within = long.slice(0, 6) + long.slice(7);
    expect(jsonSourceText(contentAttribute({ a: within }, 'a'))).toBe(within);
  });

  it('keeps no text of hostile sizes: wide, long, many (nothing kept is past the bound)', () => {
    // 100,000 keys (1.3 MB of text, within the parse bound): parsed as jsonAttribute would, no text.
    const wide = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',')}}`;
    const value = contentAttribute({ a: wide }, 'a');
    expect(Object.keys(value as object)).toHaveLength(100_000);
    expect(jsonSourceText(value)).toBeUndefined();
    // Many at the bound: each keeps its own text of at most MAX_SOURCE_TEXT_CHARS characters.
    const atBound = `[${'1,'.repeat((MAX_SOURCE_TEXT_CHARS - 3) / 2)}1]`;
    expect(atBound.length).toBeLessThanOrEqual(MAX_SOURCE_TEXT_CHARS);
    const kept = Array.from({ length: 1000 }, () => contentAttribute({ a: atBound }, 'a'));
    expect(kept.every(v => jsonSourceText(v) === atBound)).toBe(true);
  });

  it('forgets a value’s text when asked (values handed to a custom scorer)', () => {
    const call = {
      arguments: contentAttribute({ a: '{"password":"hunter2"}' }, 'a'),
      result: contentAttribute({ a: '[1]' }, 'a'),
    };
    forgetCallSourceTexts([call]);
    expect(jsonSourceText(call.arguments)).toBeUndefined();
    expect(jsonSourceText(call.result)).toBeUndefined();
  });

  it('leaves text past the parse bounds unparsed, with no text kept (bounded as parseMaybeJson)', () => {
    const deep =
      '['.repeat(INPUT_BOUNDS.maxJsonDepth + 1) + ']'.repeat(INPUT_BOUNDS.maxJsonDepth + 1);
    expect(contentAttribute({ a: deep }, 'a')).toBe(deep);
  });
});

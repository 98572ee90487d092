import { describe, expect, it } from 'vitest';
import { charsRead, parsedChars } from '../../test/helpers/counting-calls.js';
import { appendPartsToolCalls } from './message-parts-text.js';
import { appendToolCallsIn } from './message-tool-calls.js';
import type { ExtractedCall } from './tool-call.js';

describe('message text read part by part', () => {
  // `gen_ai.output.messages` text as any sender can write it, read as the extractor reads it: part
  // by part (`appendPartsToolCalls`), else whole when that declines. Each case counts the
  // characters handed to `JSON.parse` and those read one at a time or searched (`charsRead`), which
  // must stay within a few times the text's length: a reader that went back over the text for each
  // part or message would read it thousands of times here. (A part's `slice` copies what is then
  // parsed, and a key's `startsWith` reads at most the key: neither is counted apart.)
  const message = (parts: unknown[], extra: object = {}) => ({
    role: 'assistant',
    parts,
    finish_reason: 'tool_call',
    ...extra,
  });
  const toolCall = (i: number, args: unknown = { q: i }) => ({
    type: 'tool_call',
    id: `call_${i}`,
    name: 'lookup',
    arguments: args,
  });
  const calls = (n: number) => Array.from({ length: n }, (_, i) => toolCall(i));
  const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
  // Quotes after runs of 0 to 8 backslashes, each escaped in the text (`\\\\\\\"`, 7 characters).
  const escapes = Array.from({ length: 64 }, (_, i) => `${'\\'.repeat(i % 9)}"`).join('');
  const all = JSON.stringify([message(calls(2_000))]);
  const cases: Array<[string, string, boolean]> = [
    ['a message of 2,000 tool calls', all, true],
    [
      '1,000 messages of 4 tool calls',
      JSON.stringify(Array.from({ length: 1_000 }, () => message(calls(4)))),
      true,
    ],
    [
      '20,000 empty parts',
      JSON.stringify([message(Array.from({ length: 20_000 }, () => ({})))]),
      true,
    ],
    [
      '500 calls with arguments nested 58 deep (within the bound of 64)',
      JSON.stringify([message(Array.from({ length: 500 }, (_, i) => toolCall(i, nested(58))))]),
      true,
    ],
    [
      '1,000 parts of strings full of escaped quotes and backslashes',
      JSON.stringify([
        message(Array.from({ length: 1_000 }, (_, i) => toolCall(i, escapes))),
        message([{ type: 'text', content: escapes.repeat(200) }]),
      ]),
      true,
    ],
    [
      '2,000 calls, the last part never closed',
      `${all.slice(0, -4)}, {"type":"text","content":"x`,
      false,
    ],
    [
      '2,000 calls, the last string never closed after a run of escaped quotes',
      `${all.slice(0, -4)}, {"type":"text","content":"${'\\"'.repeat(10_000)}`,
      false,
    ],
    [
      '2,000 calls, then a message with a key of its own (read whole)',
      JSON.stringify([message(calls(2_000)), message(calls(1), { id: 7 })]),
      false,
    ],
    [
      '2,000 calls, then a part nested 100,000 deep (stopped at the bound, read whole)',
      `${all.slice(0, -4)},${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}]}]`,
      false,
    ],
    [
      '2,000 calls, then a part that is a string (read whole)',
      JSON.stringify([message([...calls(2_000), 'text'])]),
      false,
    ],
    [
      '2,000 messages, each of a key read twice (read whole)',
      JSON.stringify(Array.from({ length: 2_000 }, () => message(calls(1)))).replaceAll(
        '"finish_reason"',
        '"role"',
      ),
      false,
    ],
  ];

  it.each(cases)('%s: work linear in the text', async (_, text, partwise) => {
    const expected = appendToolCallsIn(text, []);
    const out: ExtractedCall[] = [];
    let read: boolean | undefined;
    let parsed = 0;
    const chars = await charsRead(async () => {
      parsed = await parsedChars(() => {
        read = appendPartsToolCalls(text, out);
        if (!read) appendToolCallsIn(text, out);
      });
    });
    expect(read).toBe(partwise);
    expect(out).toEqual(expected);
    expect(text.length).toBeGreaterThan(50_000);
    // Measured: parsed 0.7 to 1.5 times the text read part by part, 2 when read whole as well;
    // read 2 to 3.1 times (the bounds' scan, the parts' ends, the whole read's scan). A pass over
    // the rest of the text for each part (a bounds check a part) reads it thousands of times.
    expect(parsed).toBeLessThanOrEqual(2.5 * text.length);
    expect(chars).toBeLessThanOrEqual(4 * text.length);
  });
});

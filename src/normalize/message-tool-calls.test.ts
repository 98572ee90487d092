import { describe, expect, it } from 'vitest';
import { toolResultsIn } from './message-tool-calls.js';

const assistant = (...ids: string[]) => ({
  role: 'assistant',
  tool_calls: ids.map(id => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })),
});
/** A tool message as OpenLIT records it: one text part, the call's id dropped. */
const nameless = (text: string) => ({ role: 'tool', parts: [{ type: 'text', content: text }] });

describe('toolResultsIn: results that name no call', () => {
  it('pairs the k-th nameless tool message after an assistant message with its k-th call not answered by id', () => {
    const messages = [
      assistant('a1', 'a2', 'a3'),
      { role: 'tool', tool_call_id: 'a2', content: '"by id"' },
      nameless('"first"'),
      nameless('"second"'),
      nameless('"one too many"'),
      assistant('b1'),
      nameless('"third"'),
    ];
    expect(toolResultsIn(JSON.stringify(messages))).toEqual([
      { callId: 'a2', result: 'by id', isError: false },
      { callId: 'a1', result: 'first', isError: false },
      { callId: 'a3', result: 'second', isError: false },
      { callId: 'b1', result: 'third', isError: false },
    ]);
  });

  it('pairs 30,000 of them in order, each once', () => {
    // Hostile in size: each pairing used to shift the pending calls' array, which V8 moves whole
    // past about 16,000 items.
    const ids = Array.from({ length: 30_000 }, (_, i) => `c${i}`);
    const messages = [assistant(...ids), ...ids.map(id => nameless(JSON.stringify(id)))];
    const results = toolResultsIn(JSON.stringify(messages));
    expect(results).toHaveLength(ids.length);
    expect(results.every((r, i) => r.callId === ids[i] && r.result === ids[i])).toBe(true);
  });
});

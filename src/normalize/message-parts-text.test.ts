import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyJson } from '../../test/helpers/json-schema-arbitraries.js';
import { INPUT_BOUNDS, inputBoundHits } from './input-bounds.js';
import { appendPartsToolCalls } from './message-parts-text.js';
import { appendToolCallsIn } from './message-tool-calls.js';

/** The calls and the bounds counted when `read` reads `text`. */
function readWith(read: (text: string, out: never[]) => void, text: string) {
  const long = inputBoundHits.longJson;
  const deep = inputBoundHits.deepJson;
  const out: never[] = [];
  read(text, out);
  return { calls: out, long: inputBoundHits.longJson - long, deep: inputBoundHits.deepJson - deep };
}

const whole = (text: string, out: never[]) => void appendToolCallsIn(text, out);
let partwise = 0;
const parts = (text: string, out: never[]) => {
  if (appendPartsToolCalls(text, out)) partwise++;
  else appendToolCallsIn(text, out);
};

const DEEP = '['.repeat(INPUT_BOUNDS.maxJsonDepth + 1) + ']'.repeat(INPUT_BOUNDS.maxJsonDepth + 1);
const name = fc.constantFrom('get_weather', 'search_flights', 'functions.book', '', 'a"b');
const part = fc.oneof(
  { arbitrary: toolCallPart(), weight: 4 },
  { arbitrary: textPart(), weight: 2 },
  fc.record({ function: fc.record({ name, arguments: fc.constant('{"a":1}') }) }),
  anyJson,
);

function toolCallPart() {
  return fc.record(
    {
      type: fc.constantFrom('tool_call', 'server_tool_call', 'tool_use', 'text'),
      id: fc.oneof(fc.constantFrom('call_1', '', 'call_\\2'), fc.integer()),
      name,
      arguments: fc.oneof(anyJson, fc.constant('{"city":"Paris"}'), fc.constant(DEEP)),
    },
    { requiredKeys: ['type'] },
  );
}

function textPart() {
  return fc.record({
    type: fc.constant('text'),
    content: fc.oneof(
      fc.string(),
      fc.constant('{"toolName":"x","toolCallId":"c","input":{}}'),
      fc.constant(DEEP),
    ),
  });
}
/** Messages of the shape read part by part, and (one in five) any keys. */
const conforming = fc.record(
  {
    role: fc.constantFrom('assistant', 'assistant', 'user', 'tool', 'é', 'a\nb'),
    parts: fc.array(part, { maxLength: 3 }),
    finish_reason: fc.constantFrom('tool_call', 'stop'),
  },
  { requiredKeys: [] },
);
const anyKeys = fc.record(
  {
    role: fc.oneof(fc.constantFrom('assistant', 'user', 'a\nb', 'é'), anyJson),
    parts: fc.oneof(fc.array(part, { maxLength: 3 }), part, fc.constant('[]')),
    finish_reason: fc.constantFrom('tool_call', 'stop'),
    content: fc.constantFrom('hi', '[{"type":"tool_call","name":"n"}]'),
    type: fc.constantFrom('tool_call', 'text'),
    name,
  },
  { requiredKeys: [] },
);
const message = fc.oneof({ arbitrary: conforming, weight: 4 }, { arbitrary: anyKeys, weight: 1 });
/** Messages text, formatted compactly or indented, sometimes with one character changed. */
const messagesText = fc
  .tuple(
    fc.oneof(
      { arbitrary: fc.array(message, { maxLength: 3 }), weight: 4 },
      { arbitrary: message, weight: 1 },
      { arbitrary: anyJson, weight: 1 },
    ),
    fc.constantFrom(0, 2, '\t'),
    fc.option(fc.tuple(fc.nat(), fc.constantFrom('', ',', '}', ']', '{', '"', '\\', ' ', 'x')), {
      freq: 2,
    }),
  )
  .map(([value, indent, edit]) => {
    const text = JSON.stringify(value, null, indent) ?? '';
    if (!edit) return text;
    const at = edit[0] % (text.length + 1);
    return text.slice(0, at) + edit[1] + text.slice(at + 1);
  });

describe('appendPartsToolCalls', () => {
  it('finds the calls, and counts the bounds, that parsing the text whole does', () => {
    fc.assert(
      fc.property(messagesText, text => {
        expect(readWith(parts, text)).toStrictEqual(readWith(whole, text));
      }),
      { numRuns: 3000 },
    );
    // A quarter of the texts are of the shape read part by part (the rest: a changed character, an
    // escape, another key or part).
    expect(partwise).toBeGreaterThan(500);
  });

  it('reads the conventions’ own shape part by part', () => {
    const text = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content: 'Checking.' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Lisbon' } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    const out: never[] = [];
    expect(appendPartsToolCalls(text, out)).toBe(true);
    expect(out).toStrictEqual(readWith(whole, text).calls);
    expect(out).toHaveLength(1);
  });

  it('never reads a character past the text, whole, cut short or empty', () => {
    // One read past the end (`charCodeAt` giving NaN) makes V8 compile that read, and every read
    // inlined with it, as a call out for the process's life.
    const whole = JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { a: 1 } }],
        finish_reason: 'tool_call',
      },
    ]);
    const texts = [whole, `${whole} `, '', ' '];
    for (let end = 1; end < whole.length; end++) texts.push(whole.slice(0, end));
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its string below
    const charCodeAt = String.prototype.charCodeAt;
    let past = 0;
    String.prototype.charCodeAt = function (this: string, i: number) {
      if (i >= this.length || i < 0) past++;
      return charCodeAt.call(this, i);
    };
    let read = 0;
    try {
      for (const text of texts) if (appendPartsToolCalls(text, [])) read++;
    } finally {
      String.prototype.charCodeAt = charCodeAt;
    }
    expect(read).toBe(2);
    expect(past).toBe(0);
  });

  it('leaves text past the bounds, and a duplicated key, to the whole read', () => {
    const deep = `[{"role":"assistant","parts":[${DEEP}]}]`;
    const twice = '[{"parts":[{"type":"tool_call","name":"a"}],"parts":[]}]';
    for (const text of [deep, twice, ' {"role":"assistant"}', '[', '[] x']) {
      const out: never[] = [];
      expect(appendPartsToolCalls(text, out)).toBe(false);
      expect(out).toHaveLength(0);
    }
  });

  it('reads a part nested to the depth bound, and leaves one a level deeper to the whole read', () => {
    // A part's own levels: the message list, the message and its parts are three around it. At 64
    // in all (INPUT_BOUNDS.maxJsonDepth) the text is parsed either way; at 65 neither way, and the
    // whole read counts it.
    const nested = (levels: number): string =>
      `${'{"a":'.repeat(levels - 1)}{"type":"tool_call","name":"deep"${'}'.repeat(levels)}`;
    const around = (part: string) =>
      `[{"role":"assistant","parts":[{"type":"tool_call","name":"first"},${part}]}]`;
    const within = around(nested(INPUT_BOUNDS.maxJsonDepth - 3));
    const past = around(nested(INPUT_BOUNDS.maxJsonDepth - 2));
    expect(readWith(whole, within)).toMatchObject({ deep: 0 });
    expect(readWith(whole, within).calls).toHaveLength(1);
    expect(readWith(whole, past)).toStrictEqual({ calls: [], long: 0, deep: 1 });

    const out: never[] = [];
    expect(appendPartsToolCalls(within, out)).toBe(true);
    expect(out).toStrictEqual(readWith(whole, within).calls);
    // Past it: the first part's call, read before the deep part was reached, is undone.
    const deep = inputBoundHits.deepJson;
    const none: never[] = [];
    expect(appendPartsToolCalls(past, none)).toBe(false);
    expect(none).toHaveLength(0);
    expect(inputBoundHits.deepJson).toBe(deep);
    expect(readWith(parts, past)).toStrictEqual(readWith(whole, past));
  });

  it('undoes the calls and counts of parts read before the text proved not to be JSON', () => {
    const text = `[{"role":"assistant","parts":[{"type":"tool_call","name":"a","arguments":${JSON.stringify(DEEP)}}]},`;
    const deep = inputBoundHits.deepJson;
    const out: never[] = [];
    expect(appendPartsToolCalls(text, out)).toBe(false);
    expect(out).toHaveLength(0);
    expect(inputBoundHits.deepJson).toBe(deep);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import {
  otlpRequest,
  spanId,
  traceId,
  type SpanInput,
} from '../../test/helpers/otlp-json-builder.js';
import { buildAliasMap } from './canonical-tool-name.js';
import { extractToolCalls } from './extract-tool-calls.js';

const T = traceId(1);
const S = (n: number): string => spanId(1, n);
const digests = (spans: Array<Omit<SpanInput, 'traceId'>>): SpanDigest[] =>
  decodeOtlpJson(otlpRequest(spans.map(s => ({ traceId: T, ...s })))).spans;
const tool = (
  n: number,
  name: string,
  startMs: number,
  attrs: Record<string, string> = {},
  parent = 0,
): Omit<SpanInput, 'traceId'> => ({
  spanId: S(n),
  ...(parent && { parentSpanId: S(parent) }),
  name: `execute_tool ${name}`,
  startMs,
  endMs: startMs + 1,
  attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, ...attrs },
});
const chat = (
  n: number,
  startMs: number,
  attrs: Record<string, string>,
): Omit<SpanInput, 'traceId'> => ({
  spanId: S(n),
  name: 'chat m',
  startMs,
  endMs: startMs + 1,
  attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm', ...attrs },
});

describe('extractToolCalls', () => {
  it('orders calls by start time whatever order the spans arrive in', () => {
    const calls = extractToolCalls(digests([tool(3, 'c', 30), tool(1, 'a', 10), tool(2, 'b', 20)]));
    expect(calls.map(c => c.name)).toEqual(['a', 'b', 'c']);
  });

  it('keeps repeated calls to one tool as separate calls', () => {
    const calls = extractToolCalls(
      digests([
        tool(1, 'search', 1, { 'gen_ai.tool.call.id': 'x1' }),
        tool(2, 'search', 2, { 'gen_ai.tool.call.id': 'x2' }),
      ]),
    );
    expect(calls.map(c => c.callId)).toEqual(['x1', 'x2']);
  });

  it('merges two spans that report the same call id (two instrumentations, not nested)', () => {
    const calls = extractToolCalls(
      digests([
        tool(1, 'search', 1, { 'gen_ai.tool.call.id': 'same' }),
        tool(2, 'search', 2, {
          'gen_ai.tool.call.id': 'same',
          'gen_ai.tool.call.arguments': '{"q":1}',
        }),
      ]),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.arguments).toEqual({ q: 1 });
  });

  // Hand-written: ids numbered per response (`call_0` each turn) name another tool's call later.
  it('keeps two runs that share a call id but not a tool, and merges a renamed twin', () => {
    const calls = extractToolCalls(
      digests([
        tool(1, 'search', 1, { 'gen_ai.tool.call.id': 'call_0' }),
        tool(2, 'book', 2, { 'gen_ai.tool.call.id': 'call_0' }),
        tool(3, 'functions.book', 3, { 'gen_ai.tool.call.id': 'call_0' }),
      ]),
    );
    expect(calls.map(c => [c.name, c.callId])).toEqual([
      ['search', 'call_0'],
      ['book', 'call_0'],
    ]);
  });

  it('does not merge nested tool spans whose call ids differ (a tool that calls another tool)', () => {
    const calls = extractToolCalls(
      digests([
        tool(1, 'plan', 1, { 'gen_ai.tool.call.id': 'p' }),
        tool(2, 'plan', 2, { 'gen_ai.tool.call.id': 'q' }, 1),
      ]),
    );
    expect(calls.map(c => c.callId)).toEqual(['p', 'q']);
  });

  // Few calls are checked by a scan of the calls before each, many (past `SCAN_LIMIT`, 32) by
  // maps: both must merge the same nested spans.
  it.each([2, 40])(
    'merges a tool span nested in one of the same name unless their call ids differ, among %i other calls',
    others => {
      const spans = Array.from({ length: others }, (_, i) =>
        tool(100 + i, `other${i}`, 100 + i, { 'gen_ai.tool.call.id': `o${i}` }),
      );
      const calls = extractToolCalls(
        digests([
          ...spans,
          // MCP client and server: one call, the inner span without a call id.
          tool(1, 'fetch', 1, { 'gen_ai.tool.call.id': 'f' }),
          tool(2, 'fetch', 2, { 'gen_ai.tool.call.arguments': '{"url":"u"}' }, 1),
          // A tool calling another tool of the same name: two calls.
          tool(3, 'plan', 3, { 'gen_ai.tool.call.id': 'p' }),
          tool(4, 'plan', 4, { 'gen_ai.tool.call.id': 'q' }, 3),
          // Nested in a tool of another name: its own call.
          tool(5, 'search', 5, {}, 3),
        ]),
      );
      expect(calls.slice(0, 4).map(c => [c.name, c.callId])).toEqual([
        ['fetch', 'f'],
        ['plan', 'p'],
        ['plan', 'q'],
        ['search', undefined],
      ]);
      expect(calls[0]!.arguments).toEqual({ url: 'u' });
      expect(calls).toHaveLength(others + 4);
    },
  );

  it('counts a call the model requested but no span executed, once across wrapper spans', () => {
    const out = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'tool_call', name: 'refund', arguments: { id: 9 } }] },
    ]);
    const calls = extractToolCalls(
      digests([
        { ...chat(1, 0, { 'gen_ai.output.messages': out }), endMs: 10 },
        { ...chat(2, 1, { 'gen_ai.output.messages': out }), parentSpanId: S(1) },
      ]),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'refund', source: 'requested', arguments: { id: 9 } });
  });

  it('pairs a run without a call id with the request of the same arguments, not the first by order', () => {
    // MCP behind OpenInference: the SDK refused the first request (it failed the tool's schema)
    // before any tool ran; the model's corrected request ran, and its span records no call id.
    const request = (id: string, args: unknown) =>
      JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id, name: 'convert', arguments: args }] },
      ]);
    const calls = extractToolCalls(
      digests([
        chat(1, 0, { 'gen_ai.output.messages': request('c1', { amount: 'one hundred' }) }),
        chat(2, 20, { 'gen_ai.output.messages': request('c2', { amount: 100, to: 'USD' }) }),
        tool(3, 'convert', 25, { 'gen_ai.tool.call.arguments': '{"to":"USD","amount":100}' }),
      ]),
    );
    expect(calls.map(c => [c.callId, c.source, c.arguments])).toEqual([
      ['c1', 'requested', { amount: 'one hundred' }],
      ['c2', 'executed', { to: 'USD', amount: 100 }],
    ]);
  });

  it('keeps what the model asked for beside what the tool ran with (a framework may add fields)', () => {
    const request = JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'search', arguments: { q: 'x' } }],
      },
    ]);
    const calls = extractToolCalls(
      digests([
        chat(1, 0, { 'gen_ai.output.messages': request }),
        tool(2, 'search', 5, { 'gen_ai.tool.call.arguments': '{"q":"x","state":{"step":2}}' }),
      ]),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      callId: 'c1',
      source: 'executed',
      arguments: { q: 'x', state: { step: 2 } },
      requestedArguments: { q: 'x' },
    });
  });

  it('ignores tool calls replayed from earlier turns (before the last user message)', () => {
    const input = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: 'earlier question' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'old', name: 'old_tool', arguments: {} }],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'old', response: 'x' }] },
      { role: 'user', parts: [{ type: 'text', content: 'new question' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'new', name: 'new_tool', arguments: {} }],
      },
    ]);
    const calls = extractToolCalls(digests([chat(1, 0, { 'gen_ai.input.messages': input })]));
    expect(calls.map(c => c.name)).toEqual(['new_tool']);
  });

  it('attaches the result fed back to the model to a requested call, by id', () => {
    const output = JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: {} }],
      },
    ]);
    const input = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: 'q' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: {} }],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', result: '{"found":true}' }] },
    ]);
    const calls = extractToolCalls(
      digests([
        chat(1, 0, { 'gen_ai.output.messages': output }),
        chat(2, 5, { 'gen_ai.input.messages': input }),
      ]),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.result).toEqual({ found: true });
  });

  it('counts a failed call, with its status and error', () => {
    const spans = digests([
      { ...tool(1, 'pay', 1), status: { code: 2, message: 'card declined' } },
    ]);
    expect(extractToolCalls(spans)[0]).toMatchObject({ status: 'error', error: 'card declined' });
  });

  it('applies aliases to canonical names but keeps the spelling seen', () => {
    const calls = extractToolCalls(digests([tool(1, 'lookupWeather', 1)]), {
      aliases: buildAliasMap({ lookup_weather: 'get_weather' }),
    });
    expect(calls[0]).toMatchObject({
      name: 'lookupWeather',
      rawName: 'lookupWeather',
      canonicalName: 'get_weather',
    });
  });

  it('finds no calls in a trace without tools', () => {
    expect(
      extractToolCalls(
        digests([
          chat(1, 0, {
            'gen_ai.output.messages': JSON.stringify([
              { role: 'assistant', parts: [{ type: 'text', content: 'hi' }] },
            ]),
          }),
        ]),
      ),
    ).toEqual([]);
  });
});

describe('Langfuse SDK observations', () => {
  const observation = (
    n: number,
    name: string,
    startMs: number,
    attrs: Record<string, string>,
  ): Omit<SpanInput, 'traceId'> => ({
    spanId: S(n),
    parentSpanId: S(1),
    name,
    startMs,
    endMs: startMs + 1,
    attributes: attrs,
  });
  const assistant = (calls: Array<[string, string, object]>): string =>
    JSON.stringify({
      role: 'assistant',
      content: null,
      tool_calls: calls.map(([id, name, args]) => ({
        id,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      })),
    });

  it('reads a failed tool observation (level ERROR) and never counts a request replayed in a later input', () => {
    const request = assistant([['call_1', 'search', { q: 'x' }]]);
    const calls = extractToolCalls(
      digests([
        { spanId: S(1), name: 'agent', startMs: 0, endMs: 10, attributes: {} },
        observation(2, 'chat m', 1, {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.output': request,
        }),
        observation(3, 'search', 2, {
          'langfuse.observation.type': 'tool',
          'langfuse.observation.input': '{"q":"x"}',
          'langfuse.observation.output': '{"error":"Error: backend down"}',
          'langfuse.observation.level': 'ERROR',
          'langfuse.observation.status_message': 'backend down',
        }),
        // The next turn replays the request and the tool's answer in its input: no new call.
        observation(4, 'chat m', 3, {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.input': JSON.stringify([
            { role: 'user', content: 'find x' },
            JSON.parse(request) as object,
            { role: 'tool', tool_call_id: 'call_1', content: '{"error":"backend down"}' },
          ]),
          'langfuse.observation.output': '{"role":"assistant","content":"Sorry."}',
        }),
      ]),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      name: 'search',
      callId: 'call_1',
      arguments: { q: 'x' },
      status: 'error',
      error: 'backend down',
      source: 'executed',
      convention: 'langfuse',
    });
  });

  it('keeps a requested call that no tool observation ran, with its result from the next input', () => {
    const calls = extractToolCalls(
      digests([
        { spanId: S(1), name: 'agent', startMs: 0, endMs: 10, attributes: {} },
        observation(2, 'chat m', 1, {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.output': assistant([['call_7', 'lookup', { id: 7 }]]),
        }),
        observation(3, 'chat m', 3, {
          'langfuse.observation.type': 'generation',
          'langfuse.observation.input': JSON.stringify([
            { role: 'tool', tool_call_id: 'call_7', content: '{"found":true}' },
          ]),
        }),
      ]),
    );
    expect(calls).toEqual([
      expect.objectContaining({
        name: 'lookup',
        callId: 'call_7',
        arguments: { id: 7 },
        result: { found: true },
        source: 'requested',
        convention: 'langfuse',
      }),
    ]);
  });
});

describe('arguments of an executed call paired with its request', () => {
  const request = (args: object): Record<string, string> => ({
    'gen_ai.output.messages': JSON.stringify([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_1', name: 'search', arguments: args }],
      },
    ]),
  });

  it.each([
    ['a bare value', 'x'],
    ['an empty object', '{}'],
  ])('takes the request’s structured arguments over %s', (_, recorded) => {
    const calls = extractToolCalls(
      digests([
        chat(1, 0, request({ q: 'x' })),
        tool(2, 'search', 2, { 'gen_ai.tool.call.arguments': recorded }),
      ]),
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ callId: 'call_1', arguments: { q: 'x' }, source: 'executed' });
  });

  it('keeps the executed call’s own arguments when it recorded some', () => {
    const calls = extractToolCalls(
      digests([
        chat(1, 0, request({ q: 'x' })),
        tool(2, 'search', 2, { 'gen_ai.tool.call.arguments': '{"q":"x","page":2}' }),
      ]),
    );
    expect(calls[0]!.arguments).toEqual({ q: 'x', page: 2 });
  });
});

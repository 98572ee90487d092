import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../../ingest/decode-otlp-json.js';
import {
  otlpRequest,
  spanId,
  traceId,
  type AttrInput,
  type SpanInput,
} from '../../../test/helpers/otlp-json-builder.js';
import { extractToolCalls } from '../extract-tool-calls.js';

const T = traceId(9);
const S = (n: number): string => spanId(9, n);
type Span = Omit<SpanInput, 'traceId'>;

/** Each call as `name call id (source)`, read from the spans sent as OTLP/JSON. */
const calls = (...spans: Span[]): string[] =>
  extractToolCalls(decodeOtlpJson(otlpRequest(spans.map(s => ({ traceId: T, ...s })))).spans).map(
    c => `${c.name} ${c.callId ?? '-'} (${c.source})`,
  );

const span = (n: number, parent: number, name: string, attributes: Record<string, AttrInput>) => ({
  spanId: S(n),
  ...(parent && { parentSpanId: S(parent) }),
  name,
  startMs: n * 10,
  endMs: n * 10 + 5,
  attributes,
});
const agent = span(1, 0, 'invoke_agent', { 'gen_ai.operation.name': 'invoke_agent' });
/** An MCP client's `tools/call` span (GenAI semconv `mcp.md`) in session `session`, JSON-RPC id `id`. */
const mcpCall = (n: number, parent: number, tool: string, session: string, id: string) =>
  span(n, parent, `tools/call ${tool}`, {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'mcp.session.id': session,
    'mcp.request.id': id,
  });
const chat = span(2, 1, 'chat claude', {
  'gen_ai.operation.name': 'chat',
  'gen_ai.output.messages': JSON.stringify([
    {
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'call_1', name: 'read_file', arguments: { path: '/a' } }],
    },
  ]),
});

describe('MCP tools/call spans: the JSON-RPC request id is no call id', () => {
  it("keeps two servers' calls whose requests share an id (each client counts from 0)", () => {
    expect(
      calls(
        agent,
        mcpCall(2, 1, 'read_file', 'fs-session', '2'),
        mcpCall(3, 1, 'search', 'web-session', '2'),
      ),
    ).toEqual(['read_file - (executed)', 'search - (executed)']);
  });

  it("pairs the model's request with the MCP span that ran it: one call", () => {
    expect(calls(agent, chat, mcpCall(3, 1, 'read_file', 'fs-session', '2'))).toEqual([
      'read_file call_1 (executed)',
    ]);
  });

  it("merges the MCP span under a framework's tool span of the call: one call", () => {
    const tool = span(3, 1, 'execute_tool read_file', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'call_1',
    });
    expect(calls(agent, chat, tool, mcpCall(4, 3, 'read_file', 'fs-session', '2'))).toEqual([
      'read_file call_1 (executed)',
    ]);
  });
});

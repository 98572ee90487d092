/**
 * MCP `tools/call` client spans as the semantic conventions (`mcp.md`) record a server's answers:
 * a call whose arguments the tool's input schema rejects and a call to a tool the server does not
 * have are JSON-RPC errors `-32602` (invalid params: `error.type` and `rpc.response.status_code`
 * the code, the status its message), refused before any tool ran; a tool that ran and answered
 * `isError: true` is `error.type` `tool_error`.
 * HAND-BUILT: no MCP instrumentation that runs here writes these attributes; written from
 * `docs/gen-ai/mcp.md` of open-telemetry/semantic-conventions-genai (`error.type`: "the string
 * representation of the JSON-RPC error code … `tool_error`" for `isError`).
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(142);
const s = (n: number): string => spanId(142, n);

const request = (n: number, id: string, name: string, args: unknown): SpanInput => ({
  traceId: t,
  spanId: s(n),
  parentSpanId: s(1),
  name: 'chat claude',
  kind: 3,
  startMs: n * 10,
  endMs: n * 10 + 4,
  attributes: {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'claude',
    'gen_ai.output.messages': j([
      { role: 'assistant', parts: [{ type: 'tool_call', id, name, arguments: args }] },
    ]),
  },
});

const toolsCall = (
  n: number,
  id: string,
  name: string,
  args: unknown,
  error: { type: string; message: string; result?: unknown },
): SpanInput => ({
  traceId: t,
  spanId: s(n),
  parentSpanId: s(1),
  name: `tools/call ${name}`,
  kind: 3,
  startMs: n * 10,
  endMs: n * 10 + 4,
  attributes: {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': name,
    'gen_ai.tool.call.id': id,
    'gen_ai.tool.call.arguments': j(args),
    'error.type': error.type,
    ...(error.type.startsWith('-') && { 'rpc.response.status_code': error.type }),
    ...(error.result !== undefined && { 'gen_ai.tool.call.result': j(error.result) }),
  },
  status: { code: 2, message: error.message },
});

const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent files',
    startMs: 0,
    endMs: 100,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'mcp-refusals' },
  },
  request(2, 'call_read_bad', 'read_file', { file: '/tmp/notes.txt' }),
  toolsCall(
    3,
    'call_read_bad',
    'read_file',
    { file: '/tmp/notes.txt' },
    {
      type: '-32602',
      message: 'Input validation error: Invalid arguments for tool read_file: Required at path',
    },
  ),
  request(4, 'call_delete', 'delete_file', { path: '/tmp/notes.txt' }),
  toolsCall(
    5,
    'call_delete',
    'delete_file',
    { path: '/tmp/notes.txt' },
    {
      type: '-32602',
      message: 'Tool delete_file not found',
    },
  ),
  request(6, 'call_read_missing', 'read_file', { path: '/tmp/missing.txt' }),
  toolsCall(
    7,
    'call_read_missing',
    'read_file',
    { path: '/tmp/missing.txt' },
    {
      type: 'tool_error',
      message: 'ENOENT: no such file or directory',
      result: {
        content: [{ type: 'text', text: 'ENOENT: no such file or directory' }],
        isError: true,
      },
    },
  ),
];

/** The `hand-mcp-refusals` fixture. */
export const fixture = { name: 'hand-mcp-refusals', spans };

/**
 * MCP tools/call: client span and nested server span of one call; the model named it with a namespace.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t = traceId(110);
const s = (n: number): string => spanId(110, n);
const spans: SpanInput[] = [
  {
    traceId: t,
    spanId: s(1),
    name: 'invoke_agent coder',
    startMs: 0,
    endMs: 50,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'mcp' },
  },
  {
    traceId: t,
    spanId: s(2),
    parentSpanId: s(1),
    name: 'chat claude',
    kind: 3,
    startMs: 1,
    endMs: 8,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'claude',
      'gen_ai.output.messages': j([
        {
          role: 'assistant',
          parts: [
            {
              type: 'tool_call',
              name: 'mcp__filesystem__read_file',
              arguments: { path: '/tmp/notes.txt' },
            },
          ],
        },
      ]),
    },
  },
  {
    traceId: t,
    spanId: s(3),
    parentSpanId: s(1),
    name: 'tools/call read_file',
    kind: 3,
    startMs: 10,
    endMs: 30,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'mcp.session.id': 'sess-1',
    },
  },
  {
    traceId: t,
    spanId: s(4),
    parentSpanId: s(3),
    name: 'tools/call read_file',
    kind: 2,
    service: 'fs-mcp-server',
    startMs: 12,
    endMs: 28,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.arguments': j({ path: '/tmp/notes.txt' }),
      'gen_ai.tool.call.result': j({ content: [{ type: 'text', text: 'buy milk' }] }),
    },
  },
];

/** The `hand-mcp` fixture. */
export const fixture = { name: 'hand-mcp', spans };

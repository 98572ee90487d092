import { readAttributes } from '../../ingest/read-attributes.js';
import { stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { isMcpRefusal } from '../tool-failure.js';
import { nameAfter, spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * MCP `tools/call` spans (GenAI semconv `mcp.md`): `mcp.method.name=tools/call`, tool name in
 * `gen_ai.tool.name` or the span name `tools/call <tool>`. Client and server spans of one call
 * nest through context propagation and are merged by the dedupe step. A call the server refused
 * answers JSON-RPC `-32602` (invalid params), which the conventions put in `error.type` (a tool
 * that ran and failed is `tool_error`).
 */
export const mcpToolsCall: ToolCallExtractor = {
  id: 'mcp',
  executed(span) {
    const a = readAttributes(span);
    if (a['mcp.method.name'] !== 'tools/call') return undefined;
    const rawName =
      stringAttribute(a, 'gen_ai.tool.name') ??
      stringAttribute(a, 'mcp.tool.name') ??
      nameAfter(span, 'tools/call');
    if (rawName === undefined) return null;
    const outcome = spanOutcome(span);
    return {
      rawName,
      callId: stringAttribute(a, 'gen_ai.tool.call.id') ?? stringAttribute(a, 'mcp.request.id'),
      arguments: contentAttribute(a, 'gen_ai.tool.call.arguments'),
      result: contentAttribute(a, 'gen_ai.tool.call.result'),
      ...outcome,
      ...(outcome.status === 'error' && isInvalidParams(span) && { refused: true }),
    };
  },
};

/** JSON-RPC `-32602` in `error.type` (or `rpc.response.status_code`), or as the MCP SDK prints it. */
function isInvalidParams(span: SpanDigest): boolean {
  const a = readAttributes(span);
  return (
    a['error.type'] === '-32602' ||
    a['rpc.response.status_code'] === '-32602' ||
    isMcpRefusal(span.statusMessage)
  );
}

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
 *
 * The call id is `gen_ai.tool.call.id` alone. `mcp.request.id` (`jsonrpc.request.id` in later
 * conventions) is the JSON-RPC request's id, unique only within one MCP session and counted from
 * 0 by each client: two servers' first `tools/call` share it, and it is never the model's call
 * id. Read as a call id, it merged two servers' calls of different tools into one, and kept a
 * model's request (`call_…`) and the MCP span that ran it, or a framework's tool span and the
 * MCP span under it, as two calls.
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
      callId: stringAttribute(a, 'gen_ai.tool.call.id'),
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

import { jsonAttribute, stringAttribute } from '../attribute-values.js';
import { nameAfter, spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * MCP `tools/call` spans (GenAI semconv `mcp.md`): `mcp.method.name=tools/call`, tool name in
 * `gen_ai.tool.name` or the span name `tools/call <tool>`. Client and server spans of one call
 * nest through context propagation and are merged by the dedupe step.
 */
export const mcpToolsCall: ToolCallExtractor = {
  id: 'mcp',
  executed(span) {
    const a = span.attributes;
    if (a['mcp.method.name'] !== 'tools/call') return undefined;
    const rawName =
      stringAttribute(a, 'gen_ai.tool.name') ??
      stringAttribute(a, 'mcp.tool.name') ??
      nameAfter(span, 'tools/call');
    if (rawName === undefined) return [];
    return [
      {
        rawName,
        callId: stringAttribute(a, 'gen_ai.tool.call.id') ?? stringAttribute(a, 'mcp.request.id'),
        arguments: jsonAttribute(a, 'gen_ai.tool.call.arguments'),
        result: jsonAttribute(a, 'gen_ai.tool.call.result'),
        ...spanOutcome(span),
      },
    ];
  },
};

import { readAttributes } from '../../ingest/read-attributes.js';
import { isExecuteToolSpan, readExecuteToolSpan } from './gen-ai-execute-tool.js';
import { MASTRA_ATTRIBUTES } from '../../semconv/attributes.js';
import { isRecord, jsonAttribute } from '../attribute-values.js';
import { nameAfter, type ToolCallExtractor } from './extractor.js';

const TOOL_TYPES = new Set(['tool_call', 'mcp_tool_call']);

/**
 * Mastra's `@mastra/otel-exporter` (`gen-ai-semantics.ts`): `execute_tool <entity>` spans with
 * `mastra.span.type` `tool_call` or `mcp_tool_call`. The tool name is the entity name, else its
 * id (so `weatherTool` or `weather-tool`); arguments and result are JSON strings. Requested calls
 * sit in `gen_ai.output.messages` on model spans (read by the GenAI messages extractor) and, where
 * those keep only the text, in each `model_chunk` span's `mastra.model_chunk.output`
 * (`{toolName, toolCallId, toolInput}`). A call to a tool the agent does not have is handed to the
 * client as a `client_tool_call <name>` span: Mastra did not run it, so the request is refused.
 * A tool span it cannot read (no GenAI tool attributes) is not claimed.
 */
export const mastra: ToolCallExtractor = {
  id: 'mastra',
  executed(span) {
    const type = readAttributes(span)[MASTRA_ATTRIBUTES.spanType];
    if (typeof type !== 'string' || !TOOL_TYPES.has(type)) return undefined;
    const call =
      isExecuteToolSpan(span) || 'gen_ai.tool.name' in readAttributes(span)
        ? readExecuteToolSpan(span)
        : undefined;
    // Through `@mastra/arize` the same span carries OpenInference's TOOL attributes instead of
    // GenAI ones: leave it to the OpenInference extractor rather than claim it with no call
    // (which left only the model's request, with no result or error).
    return call;
  },
  refusal(span) {
    if (readAttributes(span)[MASTRA_ATTRIBUTES.spanType] !== 'client_tool_call') return undefined;
    const toolName = nameAfter(span, 'client_tool_call');
    return toolName === undefined
      ? undefined
      : {
          toolName,
          error: `Mastra handed the call to the client: the agent has no tool ${toolName}`,
        };
  },
  requested(span, calls) {
    if (readAttributes(span)[MASTRA_ATTRIBUTES.modelChunkOutput] === undefined) return undefined;
    const output = jsonAttribute(readAttributes(span), MASTRA_ATTRIBUTES.modelChunkOutput);
    if (!isRecord(output) || typeof output.toolName !== 'string' || output.toolName === '')
      return undefined;
    calls.push({
      rawName: output.toolName,
      callId: typeof output.toolCallId === 'string' ? output.toolCallId : undefined,
      arguments: output.toolInput,
    });
    return [];
  },
};

import { readAttributes } from '../../ingest/read-attributes.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import { GEN_AI_TOOL_ATTRIBUTES as G } from '../../semconv/attributes.js';
import type { ExtractedCall } from '../tool-call.js';
import { nameAfter, spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * Reads an OTel GenAI `execute_tool` span: `gen_ai.tool.name` (else the span name after
 * `execute_tool `), `gen_ai.tool.call.id`, and the opt-in `gen_ai.tool.call.arguments` /
 * `gen_ai.tool.call.result`, which may be JSON strings or structured values.
 */
export function readExecuteToolSpan(span: SpanDigest): ExtractedCall | undefined {
  const a = readAttributes(span);
  const rawName = stringAttribute(a, G.toolName) ?? nameAfter(span, 'execute_tool');
  if (rawName === undefined) return undefined;
  // Plain stores in one shape: spreading the outcome in copied it into a second property store.
  const outcome = spanOutcome(span);
  return {
    rawName,
    callId: stringAttribute(a, G.toolCallId),
    arguments: contentAttribute(a, G.toolCallArguments),
    result: contentAttribute(a, G.toolCallResult),
    status: outcome.status,
    error: outcome.error,
  };
}

/** True when `gen_ai.operation.name` is `execute_tool`. */
export function isExecuteToolSpan(span: SpanDigest): boolean {
  return readAttributes(span)[G.operationName] === 'execute_tool';
}

/** OTel GenAI semantic conventions v1.31+ `execute_tool` spans (also Vercel `@ai-sdk/otel` v7). */
export const genAiExecuteTool: ToolCallExtractor = {
  id: 'gen-ai-execute-tool',
  executed(span) {
    if (!isExecuteToolSpan(span)) return undefined;
    const call = readExecuteToolSpan(span);
    return call ?? null;
  },
};

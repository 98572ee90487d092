import { readAttributes } from '../../ingest/read-attributes.js';
import { isRecord, jsonAttribute, stringAttribute } from '../attribute-values.js';
import { appendToolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { isExecuteToolSpan } from './gen-ai-execute-tool.js';
import { readToolDefinitions } from '../tool-definitions.js';
import { nameAfter, spanOutcome, type ToolCallExtractor } from './extractor.js';

const MERGED = '(merged tools)';

function isAdk(span: SpanDigest): boolean {
  return (
    span.scopeName.startsWith('gcp.vertex.agent') ||
    'gcp.vertex.agent.tool_call_args' in readAttributes(span) ||
    'gcp.vertex.agent.llm_response' in readAttributes(span)
  );
}

/**
 * Google ADK (`google/adk/telemetry/tracing.py`): `execute_tool <name>` spans with arguments in
 * `gcp.vertex.agent.tool_call_args` and the response in `gcp.vertex.agent.tool_response`
 * (non-dict results wrapped as `{"result": …}`). The synthetic `execute_tool (merged tools)` span
 * that groups parallel calls is claimed but yields nothing: each call has its own span. A call id
 * of `<not specified>` means none. Model requests come from `gcp.vertex.agent.llm_response`; the
 * tools offered are the request's `config.tools[].functionDeclarations` (Gemini's shape).
 */
export const googleAdk: ToolCallExtractor = {
  id: 'google-adk',
  executed(span) {
    if (!isExecuteToolSpan(span) || !isAdk(span)) return undefined;
    const a = readAttributes(span);
    const rawName = stringAttribute(a, 'gen_ai.tool.name') ?? nameAfter(span, 'execute_tool');
    if (rawName === undefined || rawName === MERGED) return null;
    const id = stringAttribute(a, 'gen_ai.tool.call.id');
    let result = jsonAttribute(a, 'gcp.vertex.agent.tool_response');
    if (isRecord(result) && Object.keys(result).length === 1 && 'result' in result)
      result = result.result;
    return {
      rawName,
      callId: id === '<not specified>' ? undefined : id,
      arguments: jsonAttribute(a, 'gcp.vertex.agent.tool_call_args'),
      result,
      ...spanOutcome(span),
    };
  },
  requested(span, calls) {
    if (!isAdk(span)) return undefined;
    const response = jsonAttribute(readAttributes(span), 'gcp.vertex.agent.llm_response');
    const request = jsonAttribute(readAttributes(span), 'gcp.vertex.agent.llm_request');
    if (isRecord(response)) appendToolCallsIn(response.content, calls);
    return isRecord(request) ? toolResultsIn(request.contents) : [];
  },
  offered(span) {
    if (readAttributes(span)['gcp.vertex.agent.llm_request'] === undefined) return undefined;
    const request = jsonAttribute(readAttributes(span), 'gcp.vertex.agent.llm_request');
    const config = isRecord(request) && isRecord(request.config) ? request.config : undefined;
    return config ? readToolDefinitions(config.tools) : undefined;
  },
};

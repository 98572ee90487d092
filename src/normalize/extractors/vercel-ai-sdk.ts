import type { SpanDigest } from '../../ingest/span-digest.js';
import { jsonAttribute, stringAttribute } from '../attribute-values.js';
import { toolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import { readToolDefinitions } from '../tool-definitions.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

function isToolCallSpan(span: SpanDigest): boolean {
  return span.attributes['ai.operationId'] === 'ai.toolCall' || span.name === 'ai.toolCall';
}

/**
 * Vercel AI SDK v4–v6 `experimental_telemetry` (`generate-text/execute-tool-call.ts`): the
 * `ai.toolCall` span has `ai.toolCall.name`, `.id`, `.args` (v4/v5; `.input` in some v6 builds)
 * and `.result` (v4/v5; `.output` in v6). Model requests are `ai.response.toolCalls` on the
 * `ai.generateText`/`ai.streamText` span and its `.doGenerate`/`.doStream` child: a JSON string of
 * `[{toolCallId, toolName, input}]` (v5/v6, input itself a JSON string) or
 * `[{toolCallType, toolCallId, toolName, args}]` (v4). Results fed back are in `ai.prompt.messages`.
 * The tools offered are `ai.prompt.tools` on the `doGenerate`/`doStream` span: a list of JSON
 * strings `{type: 'function', name, description, inputSchema}` (`parameters` before v5).
 */
export const vercelAiSdk: ToolCallExtractor = {
  id: 'vercel-ai-sdk',
  executed(span) {
    if (!isToolCallSpan(span)) return undefined;
    const a = span.attributes;
    const rawName = stringAttribute(a, 'ai.toolCall.name');
    if (rawName === undefined) return [];
    return [
      {
        rawName,
        callId: stringAttribute(a, 'ai.toolCall.id'),
        arguments: jsonAttribute(a, 'ai.toolCall.args') ?? jsonAttribute(a, 'ai.toolCall.input'),
        result: jsonAttribute(a, 'ai.toolCall.result') ?? jsonAttribute(a, 'ai.toolCall.output'),
        ...spanOutcome(span),
      },
    ];
  },
  requested(span) {
    const a = span.attributes;
    const toolCalls = a['ai.response.toolCalls'];
    const prompt = a['ai.prompt.messages'];
    if (toolCalls === undefined && prompt === undefined) return undefined;
    return {
      calls: toolCalls === undefined ? [] : toolCallsIn(toolCalls),
      results: prompt === undefined ? [] : toolResultsIn(prompt),
    };
  },
  offered(span) {
    const tools = span.attributes['ai.prompt.tools'];
    return tools === undefined ? undefined : readToolDefinitions(tools);
  },
};

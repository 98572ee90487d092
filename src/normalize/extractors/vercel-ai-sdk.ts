import { readAttributes } from '../../ingest/read-attributes.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import { appendToolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import { aiSdkRefusedTool } from '../tool-failure.js';
import { readToolDefinitions } from '../tool-definitions.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

function isToolCallSpan(span: SpanDigest): boolean {
  return readAttributes(span)['ai.operationId'] === 'ai.toolCall' || span.name === 'ai.toolCall';
}

/**
 * Vercel AI SDK v4–v6 `experimental_telemetry` (`generate-text/execute-tool-call.ts`): the
 * `ai.toolCall` span has `ai.toolCall.name`, `.id`, `.args` (v4/v5; `.input` in some v6 builds)
 * and `.result` (v4/v5; `.output` in v6). Model requests are `ai.response.toolCalls` on the
 * `ai.generateText`/`ai.streamText` span and its `.doGenerate`/`.doStream` child: a JSON string of
 * `[{toolCallId, toolName, input}]` (v5/v6, input itself a JSON string) or
 * `[{toolCallType, toolCallId, toolName, args}]` (v4). Results fed back are in `ai.prompt.messages`.
 * The tools offered are `ai.prompt.tools` on the `doGenerate`/`doStream` span: a list of JSON
 * strings `{type: 'function', name, description, inputSchema}` (`parameters` before v5). A call
 * the SDK refused (its input failed the tool's schema, or no tool has its name) has no tool span:
 * v5 and v6 answer the model a `tool-error` part (read with the results), v4 ends the run.
 */
export const vercelAiSdk: ToolCallExtractor = {
  id: 'vercel-ai-sdk',
  executed(span) {
    if (!isToolCallSpan(span)) return undefined;
    const a = readAttributes(span);
    const rawName = stringAttribute(a, 'ai.toolCall.name');
    if (rawName === undefined) return null;
    return {
      rawName,
      callId: stringAttribute(a, 'ai.toolCall.id'),
      arguments:
        contentAttribute(a, 'ai.toolCall.args') ?? contentAttribute(a, 'ai.toolCall.input'),
      result:
        contentAttribute(a, 'ai.toolCall.result') ?? contentAttribute(a, 'ai.toolCall.output'),
      ...spanOutcome(span),
    };
  },
  requested(span, calls) {
    const a = readAttributes(span);
    const toolCalls = a['ai.response.toolCalls'];
    const prompt = a['ai.prompt.messages'];
    if (toolCalls === undefined && prompt === undefined) return undefined;
    if (toolCalls !== undefined) appendToolCallsIn(toolCalls, calls);
    return prompt === undefined ? [] : toolResultsIn(prompt);
  },
  offered(span) {
    const tools = readAttributes(span)['ai.prompt.tools'];
    return tools === undefined ? undefined : readToolDefinitions(tools);
  },
  // v4 ends the run with its refusal instead of answering the model: `InvalidToolArgumentsError`
  // or `NoSuchToolError` recorded on the `ai.generateText` / `ai.streamText` span.
  refusal(span) {
    if (span.statusCode !== 2 || typeof readAttributes(span)['ai.operationId'] !== 'string')
      return undefined;
    for (const event of span.events) {
      if (event.name !== 'exception') continue;
      const type = event.attributes['exception.type'];
      const message = event.attributes['exception.message'];
      if (typeof type !== 'string' || typeof message !== 'string') continue;
      const toolName = REFUSAL_ERRORS.has(type) ? aiSdkRefusedTool(message) : undefined;
      if (toolName !== undefined) return { toolName, error: `${type}: ${message}` };
    }
    return undefined;
  },
};

/** The AI SDK's errors for a call it did not run, by the name it records as `exception.type`. */
const REFUSAL_ERRORS = new Set([
  'AI_InvalidToolArgumentsError',
  'AI_InvalidToolInputError',
  'AI_NoSuchToolError',
]);

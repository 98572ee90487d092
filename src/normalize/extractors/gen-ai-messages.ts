import { readAttributes } from '../../ingest/read-attributes.js';
import { LOG_RECORD_ATTRIBUTE } from '../../ingest/log-event-carrier.js';
import type { Attributes } from '../../ingest/span-digest.js';
import { parseMaybeJson } from '../attribute-values.js';
import { currentTurn, toolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import type { ExtractedCall } from '../tool-call.js';
import { readToolDefinitions } from '../tool-definitions.js';
import type { ToolCallExtractor, ToolResultSeen } from './extractor.js';

const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

/**
 * OTel GenAI v1.37+ structured messages, used by current OpenLLMetry, Mastra, Pydantic AI,
 * Vercel `@ai-sdk/otel`, Strands and ADK in latest-conventions mode: `tool_call` parts in
 * `gen_ai.output.messages`, and in `gen_ai.input.messages` of the current turn (after the last
 * user message; earlier turns belong to earlier traces). `tool_call_response` parts carry results.
 * The same attributes are also read from the `gen_ai.client.inference.operation.details` event,
 * a span event or a log record joined to its span (OpenLIT, the OpenTelemetry instrumentations).
 * The tools offered are `gen_ai.tool.definitions` (definitions with their JSON Schema on a model
 * span: AI SDK 7, OpenLLMetry, OpenLIT; names on Mastra's agent span).
 */
export const genAiMessages: ToolCallExtractor = {
  id: 'gen-ai-messages',
  requested(span) {
    const own = readAttributes(span);
    // Most spans carry no messages: answer them without allocating.
    if (
      span.events.length === 0 &&
      own['gen_ai.output.messages'] === undefined &&
      own['gen_ai.input.messages'] === undefined
    )
      return undefined;
    let sources: Attributes[] | undefined;
    for (const event of span.events)
      if (event.name === DETAILS_EVENT) (sources ??= [own]).push(event.attributes);
    const calls: ExtractedCall[] = [];
    const results: ToolResultSeen[] = [];
    let seen = false;
    for (const a of sources ?? [own]) {
      const output = a['gen_ai.output.messages'];
      const input = a['gen_ai.input.messages'];
      // A tool span's own messages (Strands) describe its execution, not a model request.
      if (a['gen_ai.operation.name'] === 'execute_tool') continue;
      const first = calls.length;
      if (output !== undefined) {
        seen = true;
        append(calls, toolCallsIn(output));
      }
      if (input !== undefined) {
        seen = true;
        // Parsed once for both reads: the input replays the whole conversation.
        const messages = parseMaybeJson(input);
        append(calls, toolCallsIn(currentTurn(messages)));
        append(results, toolResultsIn(messages));
      }
      if (a[LOG_RECORD_ATTRIBUTE] === true)
        for (let i = first; i < calls.length; i++) calls[i]!.signal = 'logs';
    }
    return seen ? { calls, results } : undefined;
  },
  offered(span) {
    const definitions = readAttributes(span)['gen_ai.tool.definitions'];
    return definitions === undefined ? undefined : readToolDefinitions(definitions);
  },
};

/** Pushes each of `items` onto `list` (a spread into `push` copied them into arguments first). */
function append<T>(list: T[], items: readonly T[]): void {
  for (const item of items) list.push(item);
}

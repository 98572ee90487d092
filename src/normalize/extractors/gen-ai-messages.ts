import { readAttributes } from '../../ingest/read-attributes.js';
import { LOG_RECORD_ATTRIBUTE } from '../../ingest/log-event-carrier.js';
import type { Attributes } from '../../ingest/span-digest.js';
import { parseMaybeJson } from '../attribute-values.js';
import {
  appendToolCallsIn,
  appendToolResultsIn,
  appendTurnToolCalls,
} from '../message-tool-calls.js';
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
    const events = span.events;
    // Most spans carry no messages: answer them without allocating.
    if (events.length === 0 && own[OUTPUT] === undefined && own[INPUT] === undefined)
      return undefined;
    const calls: ExtractedCall[] = [];
    const results: ToolResultSeen[] = [];
    // The span's own attributes, then each details event's: no list of them is made.
    let seen = readMessages(own, calls, results);
    for (let i = 0; i < events.length; i++)
      if (events[i]!.name === DETAILS_EVENT && readMessages(events[i]!.attributes, calls, results))
        seen = true;
    return seen ? { calls, results } : undefined;
  },
  offered(span) {
    const definitions = readAttributes(span)['gen_ai.tool.definitions'];
    return definitions === undefined ? undefined : readToolDefinitions(definitions);
  },
};

const OUTPUT = 'gen_ai.output.messages';
const INPUT = 'gen_ai.input.messages';

/**
 * Appends the calls and results one source's messages hold (the span's attributes, or a details
 * event's) to the span's lists, each read into them directly; true when the source has messages.
 */
function readMessages(a: Attributes, calls: ExtractedCall[], results: ToolResultSeen[]): boolean {
  // A tool span's own messages (Strands) describe its execution, not a model request.
  if (a['gen_ai.operation.name'] === 'execute_tool') return false;
  const output = a[OUTPUT];
  const input = a[INPUT];
  const first = calls.length;
  if (output !== undefined) appendToolCallsIn(output, calls);
  if (input !== undefined) {
    // Parsed once for both reads: the input replays the whole conversation.
    const messages = parseMaybeJson(input);
    appendTurnToolCalls(messages, calls);
    appendToolResultsIn(messages, results);
  }
  if (a[LOG_RECORD_ATTRIBUTE] === true)
    for (let i = first; i < calls.length; i++) calls[i]!.signal = 'logs';
  return output !== undefined || input !== undefined;
}

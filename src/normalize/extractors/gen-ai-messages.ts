import { readAttributes } from '../../ingest/read-attributes.js';
import { LOG_RECORD_ATTRIBUTE } from '../../ingest/log-event-carrier.js';
import { parseMaybeJson } from '../attribute-values.js';
import {
  appendToolCallsIn,
  appendToolResultsIn,
  appendTurnToolCalls,
} from '../message-tool-calls.js';
import { appendPartsToolCalls } from '../message-parts-text.js';
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
  requested(span, calls) {
    const own = readAttributes(span);
    const events = span.events;
    // Most spans carry no messages: answer them without allocating.
    if (events.length === 0 && own[OUTPUT] === undefined && own[INPUT] === undefined)
      return undefined;
    // Made for the first input messages: an output alone (a model span's response) feeds back no results.
    let results: ToolResultSeen[] | undefined;
    let seen = false;
    // The span's own attributes (at -1), then each details event's: no list of them is made.
    for (let i = -1; i < events.length; i++) {
      if (i >= 0 && events[i]!.name !== DETAILS_EVENT) continue;
      const a = i < 0 ? own : events[i]!.attributes;
      // A tool span's own messages (Strands) describe its execution, not a model request.
      if (a['gen_ai.operation.name'] === 'execute_tool') continue;
      const output = a[OUTPUT];
      const input = a[INPUT];
      const first = calls.length;
      if (output !== undefined) {
        seen = true;
        // The conventions' own shape is read part by part; any other, parsed whole.
        if (typeof output !== 'string' || !appendPartsToolCalls(output, calls))
          appendToolCallsIn(output, calls);
      }
      if (input !== undefined) {
        seen = true;
        // Parsed once for both reads: the input replays the whole conversation.
        const messages = parseMaybeJson(input);
        appendTurnToolCalls(messages, calls);
        appendToolResultsIn(messages, (results ??= []));
      }
      if (a[LOG_RECORD_ATTRIBUTE] === true)
        for (let c = first; c < calls.length; c++) calls[c]!.signal = 'logs';
    }
    return seen ? (results ?? NO_RESULTS) : undefined;
  },
  offered(span) {
    const definitions = readAttributes(span)['gen_ai.tool.definitions'];
    return definitions === undefined ? undefined : readToolDefinitions(definitions);
  },
};

const NO_RESULTS: readonly ToolResultSeen[] = Object.freeze([]);
const OUTPUT = 'gen_ai.output.messages';
const INPUT = 'gen_ai.input.messages';

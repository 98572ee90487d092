import { readAttributes } from '../../ingest/read-attributes.js';
import { isRecord, jsonAttribute, parseMaybeJson, stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import type { ExtractedCall } from '../tool-call.js';
import { appendToolCallsIn } from '../message-tool-calls.js';
import { spanOutcome, type ToolCallExtractor, type ToolResultSeen } from './extractor.js';

/**
 * Pydantic Logfire's OpenAI Agents integration: function tools are spans named `Function: <name>`
 * (the message template is the span name) with attributes `name`, `input`, `output`. Model spans
 * carry an `events` attribute: a JSON list of message events, where `gen_ai.assistant.message`
 * and `gen_ai.choice` entries hold `tool_calls` and `gen_ai.tool.message` entries hold results.
 */
export const logfire: ToolCallExtractor = {
  id: 'logfire',
  executed(span) {
    const a = readAttributes(span);
    const templated = a['logfire.msg_template'] === 'Function: {name}';
    if (!templated && !span.name.startsWith('Function: ')) return undefined;
    const rawName = stringAttribute(a, 'name') ?? span.name.slice('Function: '.length);
    return {
      rawName,
      arguments: contentAttribute(a, 'input'),
      result: contentAttribute(a, 'output'),
      ...spanOutcome(span),
    };
  },
  requested(span, calls) {
    const events = jsonAttribute(readAttributes(span), 'events');
    return Array.isArray(events) ? eventRequests(events, calls) : undefined;
  },
};

/**
 * The calls of a model span's message events, appended to `calls`, and its results. Out of `requested` so that the other
 * spans do not pay for its closure's context, made on entry to the function that holds it.
 */
function eventRequests(events: unknown[], calls: ExtractedCall[]): ToolResultSeen[] {
  const lastUser = events.findLastIndex(
    e => isRecord(e) && e['event.name'] === 'gen_ai.user.message',
  );
  const results: ToolResultSeen[] = [];
  events.forEach((event: unknown, i) => {
    if (!isRecord(event)) return;
    const name = event['event.name'];
    if (i > lastUser && (name === 'gen_ai.assistant.message' || name === 'gen_ai.choice')) {
      appendToolCallsIn(event, calls);
    } else if (name === 'gen_ai.tool.message' && typeof event.id === 'string') {
      results.push({ callId: event.id, result: parseMaybeJson(event.content), isError: false });
    }
  });
  return results;
}

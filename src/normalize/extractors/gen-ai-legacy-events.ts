import { readAttributes } from '../../ingest/read-attributes.js';
import { LOG_RECORD_ATTRIBUTE } from '../../ingest/log-event-carrier.js';
import { isRecord, parseMaybeJson } from '../attribute-values.js';
import { readToolResult, toolCallsIn } from '../message-tool-calls.js';
import type { ToolCallExtractor, ToolResultSeen } from './extractor.js';

const PAYLOAD_KEYS = ['gen_ai.event.content', 'message', 'body', 'content'];

/**
 * The deprecated (semconv ≤1.36) per-message span events, still emitted by Semantic Kernel,
 * Strands (default mode) and older ADK, and the same events as OTLP log records (the OpenTelemetry
 * GenAI instrumentations: payload in the record's `body`), joined to their span by
 * `joinLogEvents`: `gen_ai.choice` and `gen_ai.assistant.message` carry the
 * model's `tool_calls` (OpenAI shape, arguments as a JSON string, or Bedrock `toolUse` blocks);
 * `gen_ai.tool.message` carries a result and its call `id`. The payload sits in an attribute
 * (`gen_ai.event.content` for Semantic Kernel, `message` for Strands) or in the attributes
 * themselves.
 */
export const genAiLegacyEvents: ToolCallExtractor = {
  id: 'gen-ai-legacy-events',
  requested(span, calls) {
    // Most spans have no events: answered before the lists are made.
    if (span.events.length === 0) return undefined;
    // On an execute_tool span these events describe the tool's own input/output (Strands).
    if (readAttributes(span)['gen_ai.operation.name'] === 'execute_tool') return undefined;
    const results: ToolResultSeen[] = [];
    let seen = false;
    for (const event of span.events) {
      if (event.name === 'gen_ai.choice' || event.name === 'gen_ai.assistant.message') {
        seen = true;
        const found = toolCallsIn(payload(event.attributes));
        if (event.attributes[LOG_RECORD_ATTRIBUTE] === true)
          for (const call of found) call.signal = 'logs';
        // A loop, not `push(...found)`: past about 120,000 calls (an event's 3.4 MB of JSON) a
        // spread overflows the stack and the trace failed unscored.
        for (let c = 0; c < found.length; c++) calls.push(found[c]!);
      } else if (event.name === 'gen_ai.tool.message') {
        seen = true;
        const p = toolMessagePayload(event.attributes);
        const id = isRecord(p) ? (p.id ?? p.tool_call_id) : undefined;
        const r = readToolResult({ role: 'tool', ...(isRecord(p) ? p : {}) });
        if (r) results.push(r);
        else if (typeof id === 'string') results.push({ callId: id, result: p, isError: false });
      }
    }
    return seen ? results : undefined;
  },
};

function payload(attributes: Record<string, unknown>): unknown {
  for (const key of PAYLOAD_KEYS) {
    if (attributes[key] !== undefined) {
      const value = parseMaybeJson(attributes[key]);
      // Semantic Kernel's choice event wraps the message: `{"message": {...}, "finish_reason": …}`.
      return isRecord(value) || Array.isArray(value) ? value : attributes;
    }
  }
  return attributes;
}

// A tool message flattened into the event's attributes (`id` beside `content`) is the payload
// itself, even when its `content` is JSON: reading `content` alone would lose the call id.
function toolMessagePayload(attributes: Record<string, unknown>): unknown {
  const id = attributes.id ?? attributes.tool_call_id;
  if (typeof id === 'string' && attributes.content !== undefined) return attributes;
  return payload(attributes);
}

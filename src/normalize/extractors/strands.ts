import { readAttributes } from '../../ingest/read-attributes.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { isRecord, parseMaybeJson, stringAttribute } from '../attribute-values.js';
import { toolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import { isExecuteToolSpan, readExecuteToolSpan } from './gen-ai-execute-tool.js';
import { readToolDefinitions } from '../tool-definitions.js';
import type { ToolCallExtractor } from './extractor.js';

function isStrands(span: SpanDigest): boolean {
  const a = readAttributes(span);
  return (
    a['gen_ai.system'] === 'strands-agents' ||
    a['gen_ai.provider.name'] === 'strands-agents' ||
    span.scopeName.startsWith('strands')
  );
}

/**
 * Strands Agents (`strands/telemetry/tracer.py`): `execute_tool <name>` spans whose arguments and
 * result live in span events, not attributes. Default mode: event `gen_ai.tool.message`
 * (`content` = arguments JSON) and `gen_ai.choice` (`message` = result). Latest-conventions mode:
 * event `gen_ai.client.inference.operation.details` with `gen_ai.input.messages` (a `tool_call`
 * part) and `gen_ai.output.messages` (a `tool_call_response` part). `gen_ai.tool.status=error`
 * marks a failed call. The result is the tool result's content blocks (`[{"text": …}]` in Python,
 * `[{"json": …}]` in TypeScript): a single block is unwrapped to its value.
 */
export const strands: ToolCallExtractor = {
  id: 'strands',
  executed(span) {
    if (!isExecuteToolSpan(span) || !isStrands(span)) return undefined;
    const call = readExecuteToolSpan(span);
    if (!call) return null;
    for (const event of span.events) {
      const a = event.attributes;
      if (event.name === 'gen_ai.tool.message' && call.arguments === undefined) {
        call.arguments = parseMaybeJson(a.content);
      } else if (event.name === 'gen_ai.choice' && call.result === undefined) {
        call.result = toolResultContent(parseMaybeJson(a.message));
      } else if (event.name === 'gen_ai.client.inference.operation.details') {
        const [requested] = toolCallsIn(a['gen_ai.input.messages']);
        if (requested && call.arguments === undefined) {
          // Strands wraps the input as `[{"content": …}]`-style parts; unwrap a lone wrapper.
          call.arguments = unwrap(requested.arguments);
        }
        const [response] = toolResultsIn(a['gen_ai.output.messages']);
        if (response && call.result === undefined) call.result = toolResultContent(response.result);
      }
    }
    if (stringAttribute(readAttributes(span), 'gen_ai.tool.status') === 'error') {
      call.status = 'error';
      call.error ??= span.statusMessage || 'error';
    }
    return call;
  },
  // The agent span names the agent's tools (`gen_ai.agent.tools`, a JSON list of names).
  offered(span) {
    const names = readAttributes(span)['gen_ai.agent.tools'];
    return names === undefined || !isStrands(span) ? undefined : readToolDefinitions(names);
  },
};

function unwrap(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 1 && isRecord(value[0]) && 'content' in value[0]) {
    return parseMaybeJson(value[0].content);
  }
  return value;
}

// A lone `{json: X}` or `{text: "…"}` content block stands for its value (text parsed if JSON).
function toolResultContent(value: unknown): unknown {
  if (!Array.isArray(value) || value.length !== 1 || !isRecord(value[0])) return value;
  const block = value[0];
  const keys = Object.keys(block);
  if (keys.length !== 1) return value;
  if (keys[0] === 'json') return block.json;
  if (keys[0] === 'text' && typeof block.text === 'string') return parseMaybeJson(block.text);
  return value;
}

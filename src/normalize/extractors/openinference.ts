import type { AttributeValue, SpanDigest } from '../../ingest/span-digest.js';
import { indexedAttributes, parseMaybeJson, stringAttribute } from '../attribute-values.js';
import type { ExtractedCall } from '../tool-call.js';
import { spanOutcome, type ToolCallExtractor, type ToolResultSeen } from './extractor.js';

/**
 * OpenInference (Arize Phoenix; any OpenInference instrumentor): a span with
 * `openinference.span.kind=TOOL` is a tool call named by `tool.name` (else the span name; CrewAI
 * names spans `<tool>.run`), arguments in `input.value`, result in `output.value`. LLM spans
 * record requested calls as `llm.output_messages.<i>.message.tool_calls.<j>.tool_call.*`, and
 * replay earlier ones in `llm.input_messages`, where `role=tool` messages carry the results.
 */
export const openInference: ToolCallExtractor = {
  id: 'openinference',
  executed(span) {
    const a = span.attributes;
    if (a['openinference.span.kind'] !== 'TOOL') return undefined;
    const rawName = stringAttribute(a, 'tool.name') ?? span.name.replace(/\.run$/, '');
    return [
      {
        rawName,
        callId: stringAttribute(a, 'tool.id') ?? stringAttribute(a, 'tool_call.id'),
        arguments: parseMaybeJson(a['input.value']) ?? undefined,
        result: parseMaybeJson(a['output.value']) ?? undefined,
        ...spanOutcome(span),
      },
    ];
  },
  requested(span) {
    const a = span.attributes;
    if (a['openinference.span.kind'] !== 'LLM') return undefined;
    const calls = indexedAttributes(a, 'llm.output_messages').flatMap(messageCalls);
    const input = indexedAttributes(a, 'llm.input_messages');
    const lastUser = input.findLastIndex(m => m['message.role'] === 'user');
    const results: ToolResultSeen[] = [];
    input.forEach((message, i) => {
      if (i > lastUser) calls.push(...messageCalls(message));
      const id = message['message.tool_call_id'];
      if (message['message.role'] === 'tool' && typeof id === 'string') {
        results.push({
          callId: id,
          result: parseMaybeJson(message['message.content']),
          isError: false,
        });
      }
    });
    return { calls, results };
  },
};

function messageCalls(message: Record<string, AttributeValue>): ExtractedCall[] {
  const calls = indexedAttributes(message, 'message.tool_calls');
  return calls.flatMap(call => {
    const name = call['tool_call.function.name'];
    if (typeof name !== 'string' || name === '') return [];
    const id = call['tool_call.id'];
    return [
      {
        rawName: name,
        callId: typeof id === 'string' && id !== '' ? id : undefined,
        arguments: parseMaybeJson(call['tool_call.function.arguments']) ?? undefined,
      },
    ];
  });
}

/** Exposed for the dedupe step: an OpenInference span that wraps a tool of another convention. */
export function isOpenInferenceTool(span: SpanDigest): boolean {
  return span.attributes['openinference.span.kind'] === 'TOOL';
}

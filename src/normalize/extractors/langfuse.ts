import { readAttributes } from '../../ingest/read-attributes.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { LANGFUSE_ATTRIBUTES } from '../../semconv/attributes.js';
import { jsonAttribute, stringAttribute } from '../attribute-values.js';
import { toolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * Langfuse's SDKs (JS v4+, Python v3+), whose observations are spans typed by
 * `langfuse.observation.type`:
 * - a `tool` observation (`observe(fn, { asType: 'tool' })`) ran the tool named by the span:
 *   arguments in `langfuse.observation.input`, result in `.output` (JSON), failed when its level
 *   is `ERROR` (the SDK then sets `status_message`, not the span status) or the span status is;
 * - a `generation` asked for calls: the model's message in `.output`, OpenAI-, Anthropic- or
 *   LangChain-shaped. Only the output is read for requests: the input replays earlier turns'
 *   requests. The input's tool messages give results, joined by call id.
 * Langfuse's tool observations record no call id, so their requests pair by name.
 */
export const langfuse: ToolCallExtractor = {
  id: 'langfuse',
  executed(span) {
    if (readAttributes(span)[LANGFUSE_ATTRIBUTES.observationType] !== 'tool') return undefined;
    const input = jsonAttribute(readAttributes(span), LANGFUSE_ATTRIBUTES.observationInput);
    const output = jsonAttribute(readAttributes(span), LANGFUSE_ATTRIBUTES.observationOutput);
    return { rawName: span.name, arguments: input, result: output, ...outcome(span) };
  },
  requested(span, out) {
    if (readAttributes(span)[LANGFUSE_ATTRIBUTES.observationType] !== 'generation')
      return undefined;
    const output = jsonAttribute(readAttributes(span), LANGFUSE_ATTRIBUTES.observationOutput);
    const input = jsonAttribute(readAttributes(span), LANGFUSE_ATTRIBUTES.observationInput);
    const calls = output === undefined ? [] : toolCallsIn(output);
    const results = input === undefined ? [] : toolResultsIn(input);
    if (calls.length === 0 && results.length === 0) return undefined;
    for (const call of calls) out.push(call);
    return results;
  },
};

function outcome(span: SpanDigest): ReturnType<typeof spanOutcome> {
  if (readAttributes(span)[LANGFUSE_ATTRIBUTES.observationLevel] === 'ERROR')
    return {
      status: 'error',
      error:
        stringAttribute(readAttributes(span), LANGFUSE_ATTRIBUTES.observationStatusMessage) ??
        'error',
    };
  return spanOutcome(span);
}

import { readAttributes } from '../../ingest/read-attributes.js';
import { GENKIT_ATTRIBUTES } from '../../semconv/attributes.js';
import { isRecord, jsonAttribute, stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import { appendToolCallsIn, toolResultsIn } from '../message-tool-calls.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { readToolDefinitions } from '../tool-definitions.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * Genkit 1.x (`@genkit-ai/core/tracing`): a tool execution is an action span whose
 * `genkit:metadata:subtype` is `tool`, named by `genkit:name`, with the arguments in `genkit:input`
 * and the result in `genkit:output` (JSON strings); `genkit:state` is `error` when it threw. The
 * tool span carries no call id: it pairs with the model's request by name, in order. A model span
 * (`subtype` `model`) holds the calls it requested in `genkit:output`
 * (`message.content[].toolRequest` with `name`, `ref`, `input`) and the results fed back in
 * `genkit:input` (`toolResponse` parts of earlier messages, by `ref`), and the tools offered in
 * its input's `tools` (`{name, description, inputSchema}`). The `generate` util spans around them
 * repeat the same messages and are not read.
 */
export const genkit: ToolCallExtractor = {
  id: 'genkit',
  executed(span) {
    const a = readAttributes(span);
    if (a[GENKIT_ATTRIBUTES.subtype] !== 'tool') return undefined;
    const outcome = spanOutcome(span);
    return {
      rawName: stringAttribute(a, GENKIT_ATTRIBUTES.name) ?? span.name,
      arguments: contentAttribute(a, GENKIT_ATTRIBUTES.input),
      result: contentAttribute(a, GENKIT_ATTRIBUTES.output),
      ...(outcome.status === 'ok' && a[GENKIT_ATTRIBUTES.state] === 'error'
        ? { status: 'error' as const, error: span.statusMessage || 'error' }
        : outcome),
    };
  },
  requested(span, calls) {
    if (!isGenkitModelSpan(span)) return undefined;
    const output = jsonAttribute(readAttributes(span), GENKIT_ATTRIBUTES.output);
    const input = jsonAttribute(readAttributes(span), GENKIT_ATTRIBUTES.input);
    if (isRecord(output)) appendToolCallsIn(output.message, calls);
    return isRecord(input) ? toolResultsIn(input.messages) : [];
  },
  offered(span) {
    if (!isGenkitModelSpan(span)) return undefined;
    const input = jsonAttribute(readAttributes(span), GENKIT_ATTRIBUTES.input);
    return isRecord(input) ? readToolDefinitions(input.tools) : undefined;
  },
};

/** A Genkit model action span: its input lists the tools offered, its output the requests. */
export function isGenkitModelSpan(span: SpanDigest): boolean {
  return readAttributes(span)[GENKIT_ATTRIBUTES.subtype] === 'model';
}

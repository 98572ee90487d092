import { readAttributes } from '../../ingest/read-attributes.js';
import { isRecord, jsonAttribute, stringAttribute } from '../attribute-values.js';
import { appendToolCallsIn } from '../message-tool-calls.js';
import { LANGSMITH_ATTRIBUTES } from '../../semconv/attributes.js';
import { readToolDefinitions } from '../tool-definitions.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * LangSmith's OTel mode (Python `langsmith/_internal/otel/_otel_exporter.py`, JS
 * `langsmith/experimental/otel`, captured from the JS SDK 0.12): a run of kind `tool`
 * becomes a span with `langsmith.span.kind=tool`, named after the tool, with the raw inputs in
 * `gen_ai.prompt` and outputs in `gen_ai.completion` (JSON). LLM runs carry the model's
 * `tool_calls` inside `gen_ai.completion` (a serialized LangChain message or generation), and
 * the tools offered in their inputs (`gen_ai.prompt`: the provider request, `tools`).
 */
export const langsmith: ToolCallExtractor = {
  id: 'langsmith',
  executed(span) {
    const a = readAttributes(span);
    if (a[LANGSMITH_ATTRIBUTES.spanKind] !== 'tool') return undefined;
    const rawName =
      stringAttribute(a, 'gen_ai.tool.name') ??
      stringAttribute(a, 'langsmith.trace.name') ??
      span.name;
    let args = jsonAttribute(a, 'gen_ai.prompt');
    // LangChain tools receive `{"input": "..."}` when called with a single string.
    if (isRecord(args) && Object.keys(args).length === 1 && 'input' in args) args = args.input;
    return {
      rawName,
      callId: stringAttribute(a, 'gen_ai.tool.call.id'),
      arguments: args,
      result: jsonAttribute(a, 'gen_ai.completion'),
      ...spanOutcome(span),
    };
  },
  requested(span, calls) {
    if (readAttributes(span)[LANGSMITH_ATTRIBUTES.spanKind] !== 'llm') return undefined;
    appendToolCallsIn(jsonAttribute(readAttributes(span), 'gen_ai.completion'), calls);
    return [];
  },
  offered(span) {
    if (readAttributes(span)[LANGSMITH_ATTRIBUTES.spanKind] !== 'llm') return undefined;
    const prompt = jsonAttribute(readAttributes(span), 'gen_ai.prompt');
    return isRecord(prompt) && prompt.tools !== undefined
      ? readToolDefinitions(prompt.tools)
      : undefined;
  },
};

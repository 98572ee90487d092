import { readAttributes } from '../ingest/read-attributes.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { isGenkitModelSpan } from './extractors/genkit.js';
import { isVoltAgentSpan } from './extractors/voltagent.js';

/** Attributes and markers of a span that called a model, across the conventions spanscore reads. */
export function isModelSpan(span: SpanDigest): boolean {
  const a = readAttributes(span);
  const operation = a['gen_ai.operation.name'];
  if (operation === 'chat' || operation === 'text_completion' || operation === 'generate_content')
    return true;
  if (a['openinference.span.kind'] === 'LLM') return true;
  if (typeof a['llm.request.type'] === 'string') return true;
  if (a['langfuse.observation.type'] === 'generation') return true;
  if (isGenkitModelSpan(span) || isVoltAgentSpan(span, 'llm')) return true;
  if (
    /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/.test(
      span.name,
    )
  )
    return true;
  return typeof a['gen_ai.request.model'] === 'string' && operation !== 'execute_tool';
}

/**
 * Instrumentation scopes that write a model call's messages (its tool calls among them) as OTLP
 * log records, not on the span: the OpenTelemetry project's GenAI instrumentations (JS and
 * Python) and Elastic's EDOT OpenAI instrumentation.
 */
export const LOGS_WRITERS: ReadonlySet<string> = new Set([
  '@opentelemetry/instrumentation-openai',
  '@elastic/opentelemetry-instrumentation-openai',
  'opentelemetry.instrumentation.openai_v2',
  'opentelemetry.instrumentation.google_genai',
  'opentelemetry.instrumentation.vertexai',
  'elasticotel.instrumentation.openai',
]);

/**
 * True for a model span of an instrumentation that writes the call's messages, and the tool calls
 * among them, as OTLP log records ({@link LOGS_WRITERS}): its trace's calls arrive in the logs.
 */
export function writesCallsToLogs(span: SpanDigest): boolean {
  return LOGS_WRITERS.has(span.scopeName) && isModelSpan(span);
}

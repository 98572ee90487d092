import { readAttributes } from '../ingest/read-attributes.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { readInJsonAttribute } from './find-id-attribute.js';

/**
 * Where a trace says it ends its session (the last turn of a conversation), each where its
 * producer puts the user's own metadata, next to where the session id is read from (see
 * `DEFAULT_SESSION_ID_ATTRIBUTES` and docs/sessions.md), under one key per producer's naming:
 * - ours, `spanscore.session.end`;
 * - the AI SDK's `experimental_telemetry: { metadata: { sessionEnd: true } }` (on every span of
 *   the call);
 * - Langfuse's trace metadata and Mastra's `tracingOptions.metadata` (`sessionEnd`, as their
 *   `testCaseId`);
 * - LangSmith's metadata and Traceloop's (OpenLLMetry) association properties (`session_end`, as
 *   their `session_id`).
 */
export const SESSION_END_ATTRIBUTES: readonly string[] = [
  SPANSCORE_ATTRIBUTES.sessionEnd,
  'ai.telemetry.metadata.sessionEnd',
  'langfuse.trace.metadata.sessionEnd',
  'mastra.metadata.sessionEnd',
  'langsmith.metadata.session_end',
  'traceloop.association.properties.session_end',
];

/**
 * The end marker inside a JSON attribute: OpenInference's `metadata` (LangChain and LangGraph copy
 * run metadata into it; `setMetadata` of `@arizeai/openinference-core` writes it for any
 * instrumentation), key `session_end`.
 */
export const SESSION_END_IN_JSON: readonly string[] = ['metadata.session_end'];

/**
 * JSON attributes parsed per trace looking for the end marker. OpenInference writes a run's
 * metadata on every span of it, so the first spans whose metadata names the key answer; the bound
 * keeps a hostile trace (thousands of spans, each with a large `metadata` naming the key) from
 * costing a parse per span.
 */
export const MAX_SESSION_END_JSON_READS = 8;

/** Where a trace's end marker was read: the attribute, and the JSON attribute and key it was in. */
export interface SessionEndSource {
  /** The name it was found under, e.g. `ai.telemetry.metadata.sessionEnd` or `metadata.session_end`. */
  attribute: string;
  inJson?: { attribute: string; key: string };
}

/**
 * Whether a trace ends its session, and where it says so: a span (any) with one of
 * {@link SESSION_END_ATTRIBUTES}, or {@link SESSION_END_IN_JSON} inside a JSON attribute, set to
 * `true` or the text `"true"`. The value is untrusted: no other text (`"yes"`, `"1"`, `"True"`)
 * and no other type counts. Direct attributes are read on every span; JSON attributes are parsed
 * only when their text names the key, and at most {@link MAX_SESSION_END_JSON_READS} per trace.
 * `undefined` when nothing says so: the session is scored once idle.
 */
export function findSessionEnd(spans: readonly SpanDigest[]): SessionEndSource | undefined {
  let jsonReads = 0;
  for (const span of spans) {
    const attributes = readAttributes(span);
    for (const name of SESSION_END_ATTRIBUTES)
      if (isTrue(attributes[name])) return { attribute: name };
    for (const name of SESSION_END_IN_JSON) {
      const holder = attributes[name.slice(0, name.lastIndexOf('.'))];
      if (holder === undefined || holder === null) continue;
      if (typeof holder === 'string') {
        if (jsonReads >= MAX_SESSION_END_JSON_READS) continue;
        if (!holder.includes(name.slice(name.lastIndexOf('.') + 1))) continue;
        jsonReads++;
      }
      const found = readInJsonAttribute(attributes, name, v => (isTrue(v) ? true : undefined));
      if (found) return { attribute: name, inJson: found.inJson };
    }
  }
  return undefined;
}

/** Whether a trace ends its session (see {@link findSessionEnd}). */
export function endsSession(spans: readonly SpanDigest[]): boolean {
  return findSessionEnd(spans) !== undefined;
}

/** An end marker's value: `true`, or the text `"true"`; nothing else. */
function isTrue(value: unknown): boolean {
  return value === true || value === 'true';
}

import type { SpanDigest } from '../ingest/span-digest.js';
import {
  GENKIT_ATTRIBUTES,
  LANGFUSE_ATTRIBUTES,
  LANGSMITH_ATTRIBUTES,
  MASTRA_ATTRIBUTES,
  SPANSCORE_ATTRIBUTES,
} from '../semconv/attributes.js';
import { stringAttribute } from './attribute-values.js';

/** The attributes that tie a trace to a test case, checked in this order on every span. */
export const DEFAULT_TEST_CASE_ID_ATTRIBUTES: readonly string[] = [
  SPANSCORE_ATTRIBUTES.testCaseId,
  'ai.telemetry.metadata.testCaseId',
  'test_case.id',
  'gen_ai.test_case.id',
  LANGFUSE_ATTRIBUTES.traceMetadataTestCaseId, // propagateAttributes({ metadata: { testCaseId } })
  MASTRA_ATTRIBUTES.metadataTestCaseId, // generate(…, { tracingOptions: { metadata: { testCaseId } } })
  LANGSMITH_ATTRIBUTES.metadataTestCaseId, // traceable(fn, { metadata: { testCaseId } })
  GENKIT_ATTRIBUTES.metadataTestCaseId, // setCustomMetadataAttribute('testCaseId', id) in a flow
];

/**
 * The test case id of a trace: for each key in order, the root span's value, else the first span
 * that has one. `undefined` when no span carries any of the keys as a string (or number).
 */
export function findTestCaseId(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[] = DEFAULT_TEST_CASE_ID_ATTRIBUTES,
): string | undefined {
  // Direct reads, key by key: walking each span's own keys instead was measured slower.
  for (const key of keys) {
    const fromRoot = root ? stringAttribute(root.attributes, key) : undefined;
    if (fromRoot !== undefined) return fromRoot;
    for (const span of spans) {
      const value = stringAttribute(span.attributes, key);
      if (value !== undefined) return value;
    }
  }
  return undefined;
}

/**
 * Where a trace's test case id `id` came from: the first of `keys` that carries it on the root
 * span (`onRoot`), else the first that carries it on any span. `undefined` when no span carries it
 * under any of the keys.
 */
export function locateTestCaseId(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[],
  id: string,
): { attribute: string; onRoot: boolean } | undefined {
  for (const key of keys) {
    if (root && stringAttribute(root.attributes, key) === id)
      return { attribute: key, onRoot: true };
    if (spans.some(s => stringAttribute(s.attributes, key) === id))
      return { attribute: key, onRoot: false };
  }
  return undefined;
}

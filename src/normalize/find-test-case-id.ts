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
  return findTestCaseIdWithAttribute(spans, root, keys)?.id;
}

/** {@link findTestCaseId}, with the attribute the id was read from. */
export function findTestCaseIdWithAttribute(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[] = DEFAULT_TEST_CASE_ID_ATTRIBUTES,
): { id: string; attribute: string } | undefined {
  // Direct reads, key by key: walking each span's own keys instead was measured slower.
  for (const key of keys) {
    const fromRoot = root ? stringAttribute(root.attributes, key) : undefined;
    if (fromRoot !== undefined) return { id: fromRoot, attribute: key };
    for (const span of spans) {
      const value = stringAttribute(span.attributes, key);
      if (value !== undefined) return { id: value, attribute: key };
    }
  }
  return undefined;
}

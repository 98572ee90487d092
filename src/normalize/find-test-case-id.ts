import type { SpanDigest } from '../ingest/span-digest.js';
import {
  GENKIT_ATTRIBUTES,
  LANGFUSE_ATTRIBUTES,
  LANGSMITH_ATTRIBUTES,
  MASTRA_ATTRIBUTES,
  SPANSCORE_ATTRIBUTES,
} from '../semconv/attributes.js';
import { findIdAttributes, idNames, readIdAttribute, type IdNames } from './find-id-attribute.js';

/** The test case id an attribute name finds on one span (see {@link readIdAttribute}). */
export const readTestCaseId = readIdAttribute;

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
  'metadata.testCaseId', // OpenInference: `metadata` = '{"testCaseId": …}' (Mastra through Arize, LangChain's RunnableConfig)
];

/** The default read inside OpenInference's JSON `metadata` attribute. */
const OPENINFERENCE_METADATA_KEY = 'metadata.testCaseId';

/**
 * The test case id of a trace: for each key in order, the root span's value, else the first span
 * that has one; then the same inside JSON-object attributes ({@link readTestCaseId}), so a name
 * found whole anywhere wins over one found in JSON. `undefined` when no span carries any of the
 * keys as a string (or number). Where it was read: `findIdAttributes` with {@link testCaseIdNames}.
 */
export function findTestCaseId(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[] = DEFAULT_TEST_CASE_ID_ATTRIBUTES,
): string | undefined {
  return findIdAttributes(spans, root, [testCaseIdNames(keys)])[0]?.id;
}

const namesOf = new WeakMap<readonly string[], IdNames>();

/**
 * The names a test case id is read from, as `findIdAttributes` takes them (with the names read
 * inside JSON as {@link findTestCaseId} reads them), to look it up in the same walk
 * as other ids. Made once per list of names.
 */
export function testCaseIdNames(
  keys: readonly string[] = DEFAULT_TEST_CASE_ID_ATTRIBUTES,
): IdNames {
  let names = namesOf.get(keys);
  if (!names) namesOf.set(keys, (names = idNames(keys, readsTestCaseIdInJson)));
  return names;
}

/** Whether a name is also looked for inside JSON-object attributes (see {@link DIRECT_ONLY}). */
function readsTestCaseIdInJson(key: string): boolean {
  return !DIRECT_ONLY.has(key);
}

/**
 * The defaults read only as whole attribute names, never inside JSON: every default but
 * `metadata.testCaseId`, the one a framework writes into JSON (OpenInference). Looking for every
 * default's prefixes in every span of a trace without an id (all production traffic scored by
 * rules) cost normalization 3.7× its time (275,000 → 75,000 traces/s in the scoring bench). A
 * suite's own names are all looked for inside JSON too.
 */
const DIRECT_ONLY: ReadonlySet<string> = new Set(
  DEFAULT_TEST_CASE_ID_ATTRIBUTES.filter(k => k !== OPENINFERENCE_METADATA_KEY),
);

import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { findIdAttributes } from './find-id-attribute.js';
import {
  DEFAULT_TEST_CASE_ID_ATTRIBUTES,
  findTestCaseId,
  testCaseIdNames,
} from './find-test-case-id.js';

const KEYS = ['spanscore.test_case.id', 'test_case.id', 'gen_ai.test_case.id'];

/** The test case id under the default names, and where it was read. */
const withSource = (spans: readonly SpanDigest[], root: SpanDigest) =>
  findIdAttributes(spans, root, [testCaseIdNames()])[0];

const span = (attributes: Record<string, unknown>): SpanDigest =>
  ({ attributes }) as unknown as SpanDigest;

describe('findTestCaseId', () => {
  it('prefers the first key, then the root span, then the earliest span', () => {
    const root = span({ 'test_case.id': 'root-second-key' });
    const early = span({ 'gen_ai.test_case.id': 'third-key' });
    const late = span({ 'spanscore.test_case.id': 'late-first-key' });
    expect(findTestCaseId([early, root, late], root, KEYS)).toBe('late-first-key');
    expect(findTestCaseId([early, root], root, KEYS)).toBe('root-second-key');
    expect(
      findTestCaseId(
        [early, span({ 'test_case.id': 'a' }), span({ 'test_case.id': 'b' })],
        undefined,
        KEYS,
      ),
    ).toBe('a');
    expect(
      findTestCaseId([span({ 'test_case.id': '' }), span({ 'test_case.id': 7 })], undefined, KEYS),
    ).toBe('7');
    expect(
      findTestCaseId([span({ 'test_case.id': true, other: 'x' })], undefined, KEYS),
    ).toBeUndefined();
  });
});

describe('a test case id inside a JSON-object attribute', () => {
  it("finds OpenInference's metadata.testCaseId by default, and says where", () => {
    const root = span({ metadata: '{"testCaseId":"weather-paris","user":"u1"}' });
    expect(withSource([root], root)).toEqual({
      id: 'weather-paris',
      attribute: 'metadata.testCaseId',
      inJson: { attribute: 'metadata', key: 'testCaseId' },
    });
    expect(DEFAULT_TEST_CASE_ID_ATTRIBUTES).toContain('metadata.testCaseId');
  });

  it('prefers an attribute of the whole name, on any span, to the key in JSON on the root', () => {
    const root = span({ metadata: '{"testCaseId":"from-json"}' });
    const child = span({ 'metadata.testCaseId': 'whole-name' });
    expect(withSource([root, child], root)).toEqual({
      id: 'whole-name',
      attribute: 'metadata.testCaseId',
    });
  });

  it('keeps the order of the names: an earlier name in JSON wins over a later one whole', () => {
    const keys = ['metadata.testCaseId', 'test_case.id'];
    const s = span({ metadata: '{"testCaseId":"json"}', 'test_case.id': 'whole' });
    expect(findTestCaseId([s], s, keys)).toBe('json');
  });

  it('reads nested keys, dotted keys and key-value lists, the longest attribute name first', () => {
    const keys = ['run.metadata.case.id'];
    expect(
      findTestCaseId([span({ run: '{"metadata":{"case":{"id":"nested"}}}' })], undefined, keys),
    ).toBe('nested');
    expect(
      findTestCaseId([span({ 'run.metadata': '{"case.id":"dotted"}' })], undefined, keys),
    ).toBe('dotted');
    expect(
      findTestCaseId(
        [
          span({
            'run.metadata': '{"case":{"id":"longest"}}',
            run: '{"metadata":{"case":{"id":"shorter"}}}',
          }),
        ],
        undefined,
        keys,
      ),
    ).toBe('longest');
    expect(findTestCaseId([span({ 'run.metadata': { case: { id: 42 } } })], undefined, keys)).toBe(
      '42',
    );
  });

  it('finds nothing in JSON that is not an object, does not parse, or holds no usable id', () => {
    const keys = ['metadata.testCaseId'];
    for (const metadata of [
      '["testCaseId"]',
      '{"testCaseId":',
      'testCaseId=x',
      '{"testCaseId":""}',
      '{"testCaseId":true}',
      '{"testCaseId":{"id":"x"}}',
      '{"other":"x"}',
    ])
      expect(findTestCaseId([span({ metadata })], undefined, keys), metadata).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { findTestCaseId } from './find-test-case-id.js';

const KEYS = ['spanscore.test_case.id', 'test_case.id', 'gen_ai.test_case.id'];

const span = (attributes: Record<string, string | number | boolean>): SpanDigest =>
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

import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import {
  DEFAULT_SESSION_ID_ATTRIBUTES,
  findSessionId,
  MAX_SESSION_ID_CHARS,
} from './find-session-id.js';

const span = (attributes: Record<string, unknown>): SpanDigest =>
  ({ attributes }) as unknown as SpanDigest;

describe('findSessionId', () => {
  it.each([
    ['spanscore.session.id', 'ours'],
    ['gen_ai.conversation.id', 'GenAI semantic conventions'],
    ['session.id', 'OpenInference (LangChain and LangGraph copy thread_id into it)'],
    ['langfuse.session.id', 'Langfuse'],
    ['ai.telemetry.metadata.sessionId', 'the AI SDK’s telemetry metadata'],
    ['langsmith.metadata.session_id', 'LangSmith'],
    ['langsmith.metadata.thread_id', 'LangSmith'],
    ['langsmith.metadata.conversation_id', 'LangSmith'],
    ['traceloop.association.properties.session_id', 'Traceloop'],
    ['traceloop.association.properties.thread_id', 'Traceloop'],
    ['traceloop.association.properties.conversation_id', 'Traceloop'],
  ])('reads %s (%s)', attribute => {
    const root = span({ [attribute]: 'conv-7' });
    expect(findSessionId([root], root)).toEqual({ id: 'conv-7', attribute });
  });

  it('checks the names in order, the root span first, then any span', () => {
    const root = span({ 'session.id': 'from-openinference' });
    const child = span({ 'gen_ai.conversation.id': 'from-genai' });
    expect(findSessionId([root, child], root)).toEqual({
      id: 'from-genai',
      attribute: 'gen_ai.conversation.id',
    });
    // OpenInference writes session.id on every span; a trace whose root was not exported.
    expect(findSessionId([span({}), span({ 'session.id': 't-1' })], undefined)).toEqual({
      id: 't-1',
      attribute: 'session.id',
    });
    expect(findSessionId([span({ 'session.id': 42 })], undefined)?.id).toBe('42');
    expect(findSessionId([span({ 'session.id': '' }), span({})], undefined)).toBeUndefined();
  });

  it('reads the defaults as whole names only, and names of the user’s own inside JSON too', () => {
    const root = span({ metadata: '{"session_id":"in-json","thread_id":"t-9"}' });
    expect(findSessionId([root], root)).toBeUndefined();
    expect(
      findSessionId([root], root, [...DEFAULT_SESSION_ID_ATTRIBUTES, 'metadata.thread_id']),
    ).toEqual({
      id: 't-9',
      attribute: 'metadata.thread_id',
      inJson: { attribute: 'metadata', key: 'thread_id' },
    });
  });

  it('cuts an id longer than the limit: session ids are untrusted text', () => {
    const root = span({ 'session.id': 'x'.repeat(10_000) });
    expect(findSessionId([root], root)?.id).toBe('x'.repeat(MAX_SESSION_ID_CHARS));
    expect(MAX_SESSION_ID_CHARS).toBe(256);
  });

  it.each([
    ['a lone surrogate', 'x\ud83d', 'x\ufffd'],
    ['a line break', 'evil\nhidden', 'evil\ufffdhidden'],
    ['control characters', 'a\u0000b\u007f', 'a\ufffdb\ufffd'],
    ['a pair cut in two by the limit', `${'x'.repeat(255)}😀`, `${'x'.repeat(255)}\ufffd`],
  ])('replaces %s with U+FFFD, as both stores then name it', (_, sent, id) => {
    const root = span({ 'session.id': sent });
    expect(findSessionId([root], root)?.id).toBe(id);
  });

  it('keeps well-formed text as it is: pairs, and characters past ASCII', () => {
    const root = span({ 'session.id': 'thread 😀 Zürich\ufffd' });
    expect(findSessionId([root], root)?.id).toBe('thread 😀 Zürich\ufffd');
  });
});

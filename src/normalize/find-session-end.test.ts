import { readFileSync } from 'node:fs';
import { generateText, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordingProvider } from '../../test/helpers/sdk-spans.js';
import { spanDigestOf } from '../capture/span-digest-of.js';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import type { AttributeValue, SpanDigest } from '../ingest/span-digest.js';
import {
  endsSession,
  findSessionEnd,
  MAX_SESSION_END_JSON_READS,
  SESSION_END_ATTRIBUTES,
} from './find-session-end.js';
import { findSessionId } from './find-session-id.js';

const FIXTURES = new URL('../../test/fixtures/otlp/', import.meta.url).pathname;

/** The spans of a real capture, in file order. */
function captured(file: string): SpanDigest[] {
  return decodeOtlpJson(JSON.parse(readFileSync(FIXTURES + file, 'utf8'))).spans;
}

/** A copy of `span` with more attributes, as its producer writes them next to the ones it has. */
const withAttributes = (span: SpanDigest, more: Record<string, AttributeValue>): SpanDigest => ({
  ...span,
  attributes: { ...span.attributes, ...more },
});

/** A span of a captured trace whose attribute `name` holds the session id (its producer's place). */
function spanWith(spans: SpanDigest[], name: string): SpanDigest {
  const span = spans.find(s => s.attributes[name] !== undefined);
  if (!span) throw new Error(`no span with ${name}`);
  return span;
}

/** A real AI SDK `generateText` run (mock model, one tool call) with `metadata`, as spans. */
async function aiSdkTurn(metadata: Record<string, string | boolean>): Promise<SpanDigest[]> {
  const { provider, spans } = recordingProvider('ai-sdk-agent');
  let step = 0;
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  const model = new MockLanguageModelV2({
    doGenerate: () =>
      Promise.resolve(
        step++ === 0
          ? {
              content: [
                {
                  type: 'tool-call' as const,
                  toolCallId: 'c1',
                  toolName: 'verify_identity',
                  input: '{"dateOfBirth":"1990-01-01"}',
                },
              ],
              finishReason: 'tool-calls' as const,
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text' as const, text: 'Verified.' }],
              finishReason: 'stop' as const,
              usage,
              warnings: [],
            },
      ),
  });
  await generateText({
    model,
    prompt: 'My date of birth is 1990-01-01',
    tools: {
      verify_identity: tool({
        inputSchema: z.object({ dateOfBirth: z.string() }),
        execute: () => Promise.resolve({ verified: true }),
      }),
    },
    stopWhen: ({ steps }) => steps.length >= 2,
    experimental_telemetry: { isEnabled: true, tracer: provider.getTracer('ai'), metadata },
  });
  await provider.forceFlush();
  return spans().map(spanDigestOf);
}

describe('findSessionEnd', () => {
  it('reads the AI SDK’s experimental_telemetry.metadata.sessionEnd (a real generateText run)', async () => {
    const last = await aiSdkTurn({ sessionId: 'conv-1', testCaseId: 'refund', sessionEnd: true });
    // The AI SDK writes the metadata on every span of the call: the session id and the end alike.
    expect(last.length).toBeGreaterThanOrEqual(3);
    expect(last.every(s => s.attributes['ai.telemetry.metadata.sessionEnd'] === true)).toBe(true);
    expect(findSessionId(last, undefined)?.attribute).toBe('ai.telemetry.metadata.sessionId');
    expect(findSessionEnd(last)).toEqual({ attribute: 'ai.telemetry.metadata.sessionEnd' });
    // A string from a form or a query parameter: "true" only.
    expect(endsSession(await aiSdkTurn({ sessionId: 'conv-1', sessionEnd: 'true' }))).toBe(true);
    expect(endsSession(await aiSdkTurn({ sessionId: 'conv-1', sessionEnd: false }))).toBe(false);
    expect(endsSession(await aiSdkTurn({ sessionId: 'conv-1' }))).toBe(false);
  });

  it('reads OpenInference’s metadata JSON, key session_end (a real LangGraph capture’s span)', () => {
    const spans = captured('captured-langgraph-1.7.3-openinference-4.1.1-sessions.otlp.json');
    const span = spanWith(spans, 'metadata');
    expect(endsSession(spans)).toBe(false);
    // LangGraph copies the run's config metadata into this JSON on every span of the run.
    const metadata = JSON.parse(span.attributes.metadata as string) as Record<string, unknown>;
    const ended = withAttributes(span, {
      metadata: JSON.stringify({ ...metadata, session_end: true }),
    });
    expect(findSessionEnd([ended])).toEqual({
      attribute: 'metadata.session_end',
      inJson: { attribute: 'metadata', key: 'session_end' },
    });
    const asText = withAttributes(span, {
      metadata: JSON.stringify({ ...metadata, session_end: 'true' }),
    });
    expect(endsSession([asText])).toBe(true);
    const notEnded = withAttributes(span, {
      metadata: JSON.stringify({ ...metadata, session_end: 'yes' }),
    });
    expect(endsSession([notEnded])).toBe(false);
  });

  it.each([
    // [the capture, the attribute its session id or test case id is under, the end marker]
    [
      'captured-langsmith-0.12.0.otlp.json',
      'langsmith.metadata.testCaseId',
      'langsmith.metadata.session_end',
    ],
    [
      'captured-langfuse-5.11.1.otlp.json',
      'langfuse.trace.metadata.testCaseId',
      'langfuse.trace.metadata.sessionEnd',
    ],
    [
      'captured-mastra-1.71.0-sessions.otlp.json',
      'mastra.metadata.body',
      'mastra.metadata.sessionEnd',
    ],
  ])('reads %s’s metadata next to %s: %s', (file, metadataAttribute, marker) => {
    const spans = captured(file);
    expect(endsSession(spans)).toBe(false);
    // These SDKs write each metadata key as its own attribute; LangSmith and Langfuse as text.
    const span = spanWith(spans, metadataAttribute);
    expect(findSessionEnd([...spans, withAttributes(span, { [marker]: 'true' })])).toEqual({
      attribute: marker,
    });
    expect(endsSession([withAttributes(span, { [marker]: true })])).toBe(true);
    expect(endsSession([withAttributes(span, { [marker]: 'True' })])).toBe(false);
  });

  it('reads Traceloop’s association properties, key session_end (hand-written: no capture sets any)', () => {
    const span = {
      attributes: {
        'traceloop.association.properties.session_id': 'conv-1',
        'traceloop.association.properties.session_end': 'true',
      },
    } as unknown as SpanDigest;
    expect(findSessionId([span], span)?.attribute).toBe(
      'traceloop.association.properties.session_id',
    );
    expect(findSessionEnd([span])).toEqual({
      attribute: 'traceloop.association.properties.session_end',
    });
  });

  it('reads ours on any span, true or "true" only: the value is untrusted', () => {
    const span = (attributes: Record<string, unknown>): SpanDigest =>
      ({ attributes }) as unknown as SpanDigest;
    expect(endsSession([span({}), span({ 'spanscore.session.end': true })])).toBe(true);
    expect(endsSession([span({ 'spanscore.session.end': 'true' })])).toBe(true);
    for (const value of [false, 'false', 'yes', '1', 1, 'TRUE', ' true', [true], { end: true }])
      for (const name of SESSION_END_ATTRIBUTES)
        expect(endsSession([span({ [name]: value })]), `${name} = ${JSON.stringify(value)}`).toBe(
          false,
        );
    expect(endsSession([span({})])).toBe(false);
  });

  it('parses at most a bounded number of JSON attributes per trace, only those naming the key', () => {
    const span = (metadata: unknown): SpanDigest =>
      ({ attributes: { metadata } }) as unknown as SpanDigest;
    // Thousands of spans whose metadata names the key without ending the session.
    const hostile = Array.from({ length: 5_000 }, () =>
      span(JSON.stringify({ session_end: false, pad: 'x'.repeat(100) })),
    );
    const ended = span('{"session_end":true}');
    // The end marker past the bound is not seen: the work stops at the bound.
    expect(endsSession([...hostile, ended])).toBe(false);
    expect(endsSession([...hostile.slice(0, MAX_SESSION_END_JSON_READS - 1), ended])).toBe(true);
    // Metadata that does not name the key is not parsed, so it uses none of the bound, however
    // many spans carry it.
    const quiet = Array.from({ length: 5_000 }, () => span('{"thread_id":"t-1"}'));
    expect(endsSession([...quiet, ended])).toBe(true);
  });
});

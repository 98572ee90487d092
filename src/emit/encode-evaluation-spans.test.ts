import { createHash } from 'node:crypto';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it, vi } from 'vitest';
import { decodedTraceRequest } from '../../test/helpers/decoded-trace-request.js';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import { decodeOtlpProtobuf } from '../ingest/decode-otlp-protobuf.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ScorerOutcome } from '../score/run-scorers.js';
import { SPANSCORE_VERSION } from '../version.js';
import { encodeEvaluationSpans } from './encode-evaluation-spans.js';
import { toReadableSpan } from './otlp-evaluation-exporter.js';
import { scoreToSpan, type EvaluationSpan } from './score-to-span.js';

const trace = agentTrace(['search', 'weather', 'search'], { testCaseId: 'tc-7' });
const time = { startUnixNano: 1_795_000_000_123_456_789n, endUnixNano: 1_795_000_000_987_654_321n };

function spans(t: NormalizedTrace = trace): EvaluationSpan[] {
  const scored: ScorerOutcome = {
    scorer: 'tool_correctness',
    kind: 'deterministic',
    version: 'abc123def456',
    result: {
      status: 'scored',
      score: 0.5,
      label: 'fail',
      // Past 127 bytes and not ASCII: a length of two bytes, UTF-8 of several bytes a character.
      reason: `missing maps — « ${'é'.repeat(80)} » 🚀; unexpected search`,
      details: {
        missingTools: ['maps'],
        unexpectedTools: ['search'],
        usage: { inputTokens: 812, outputTokens: -3, costUsd: 0.0042 },
      },
    },
  };
  const failed: ScorerOutcome = {
    scorer: 'rubric',
    kind: 'llm',
    result: { status: 'failed', error: 'judge answered 500', errorType: 'SS_JUDGE_FAILED' },
  };
  const whole: ScorerOutcome = {
    scorer: 'tool_call_accuracy',
    kind: 'deterministic',
    result: { status: 'scored', score: 1, label: 'pass', reason: 'ok', details: {} },
  };
  return [
    scoreToSpan(t, scored, undefined, time),
    scoreToSpan(t, failed, undefined, time, 'rule:nightly'),
    scoreToSpan(t, whole, undefined, time),
  ];
}

describe('encodeEvaluationSpans', () => {
  it("writes the message the SDK's serializer writes for the same spans, field for field", () => {
    const evaluation = spans();
    const ours = encodeEvaluationSpans(evaluation, {
      serviceName: 'spanscore',
      scope: { name: 'spanscore', version: SPANSCORE_VERSION },
    });
    const resource = resourceFromAttributes({ 'service.name': 'spanscore' });
    const sdk = ProtobufTraceSerializer.serializeRequest(
      evaluation.map(s => toReadableSpan(s, resource)),
    )!;
    expect(decodedTraceRequest(ours)).toEqual(decodedTraceRequest(sdk));
  });

  it('reads back through our own decoder: ids, parent, times, attributes and status', () => {
    const evaluation = spans();
    const decoded = decodeOtlpProtobuf(
      Buffer.from(
        encodeEvaluationSpans(evaluation, {
          serviceName: 'evals',
          scope: { name: 's', version: '1' },
        }),
      ),
    );
    expect(decoded.rejectedCount).toBe(0);
    expect(decoded.spans).toHaveLength(3);
    const [first, second] = decoded.spans;
    expect(first).toMatchObject({
      traceId: trace.traceId,
      spanId: evaluation[0]!.spanId,
      parentSpanId: trace.root!.spanId,
      name: 'evaluation tool_correctness',
      kind: 1,
      startTimeUnixNano: time.startUnixNano,
      endTimeUnixNano: time.endUnixNano,
      statusCode: 0,
      serviceName: 'evals',
      scopeName: 's',
    });
    expect(first!.attributes['gen_ai.evaluation.score.value']).toBe(0.5);
    expect(first!.attributes['gen_ai.usage.output_tokens']).toBe(-3);
    expect(first!.attributes['gen_ai.evaluation.explanation']).toBe(
      evaluation[0]!.attributes['gen_ai.evaluation.explanation'],
    );
    expect(first!.events[0]!.name).toBe('gen_ai.evaluation.result');
    expect(second).toMatchObject({ statusCode: 2, statusMessage: 'judge answered 500' });
    expect(second!.attributes['spanscore.rule']).toBe('rule:nightly');
  });
});

describe('encodeEvaluationSpans, a session’s result', () => {
  it('links every earlier turn’s root, as the SDK would, and names the session', async () => {
    const { sessionTrace } = await import('../normalize/session-trace.js');
    const first = agentTrace(['lookup'], { atMs: 0 });
    const second = agentTrace(['verify'], { atMs: 60_000 });
    const third = agentTrace(['refund'], { atMs: 120_000 });
    const session = sessionTrace('conv-1', [third, first, second]);
    const outcome: ScorerOutcome = {
      scorer: 'tool_trajectory',
      kind: 'deterministic',
      result: {
        status: 'scored',
        score: 0,
        label: 'fail',
        reason: 'turn 2: missing verify_identity',
        details: { failingTurn: 2 },
      },
    };
    const span = scoreToSpan(session, outcome, undefined, time);
    expect(span.traceId).toBe(third.traceId);
    expect(span.parentSpanId).toBe(third.root!.spanId);
    expect(span.turnLinks).toEqual([
      { traceId: first.traceId, spanId: first.root!.spanId, turn: 1 },
      { traceId: second.traceId, spanId: second.root!.spanId, turn: 2 },
    ]);
    expect(span.attributes).toMatchObject({
      'spanscore.session.id': 'conv-1',
      'spanscore.session.turns': 3,
      'spanscore.session.failing_turn': 2,
    });
    const origin = {
      serviceName: 'spanscore',
      scope: { name: 'spanscore', version: SPANSCORE_VERSION },
    };
    const resource = resourceFromAttributes({ 'service.name': 'spanscore' });
    const sdk = ProtobufTraceSerializer.serializeRequest([toReadableSpan(span, resource)])!;
    expect(decodedTraceRequest(encodeEvaluationSpans([span], origin))).toEqual(
      decodedTraceRequest(sdk),
    );
  });
});

describe('encodeEvaluationSpans, bytes pinned', () => {
  // The digest of what the encoder wrote for these spans before scoreToSpan's allocation was cut
  // (issue 60; recorded on 8fda3b3, the commit before those cuts): any change of an attribute's
  // order, value or type changes the bytes.
  it('writes the same bytes, attribute order included, for every kind of result', async () => {
    // A fresh instance of the trace builder: its ids come from a counter, which other test files
    // sharing this worker's modules (the `shared` project) have moved on.
    vi.resetModules();
    const { sessionTrace } = await import('../normalize/session-trace.js');
    const { agentTrace, teamTrace } = await import('../../test/helpers/trace-builder.js');
    const trace = agentTrace(['search', 'weather', 'search'], { testCaseId: 'tc-7' });
    const team = teamTrace(
      [
        { agent: 'triage', calls: [{ name: 'lookup' }], handoffTo: 'billing' },
        { agent: 'billing', calls: [{ name: 'refund' }] },
      ],
      { testCaseId: 'tc-team' },
    );
    const blamed: ScorerOutcome = {
      scorer: 'tool_trajectory',
      kind: 'deterministic',
      result: {
        status: 'scored',
        score: 0,
        label: 'fail',
        reason: 'billing skipped verify',
        details: {
          failingAgents: ['billing'],
          failingTurn: 1,
          usage: { model: 'm', cached: true },
        },
      },
    };
    const skipped: ScorerOutcome = {
      scorer: 'rubric',
      kind: 'llm',
      result: { status: 'skipped', reason: 'no judge' },
    };
    const session = sessionTrace('conv-9', [
      agentTrace(['verify'], { atMs: 60_000 }),
      agentTrace(['lookup'], { atMs: 0 }),
    ]);
    const all = [
      ...spans(trace),
      scoreToSpan(team, blamed, { id: 'tc-team', scorers: [], expectedTools: ['verify'] }, time),
      scoreToSpan(team, skipped, undefined, time, 'rule:tool-health'),
      scoreToSpan(session, blamed, undefined, time),
    ];
    const origin = { serviceName: 'spanscore', scope: { name: 'spanscore', version: 'pinned' } };
    const bytes = encodeEvaluationSpans(all, origin);
    const digest = createHash('sha256').update(bytes).digest('hex');
    expect({ length: bytes.length, digest }).toEqual({
      length: 6170,
      digest: '396286901b3a53754ba2abbdf23e5e0003e5f8fd25acf1230fd79a4f7ed2b5e5',
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import type { TraceRun } from '../score/trace-run.js';
import { deliveryFollowUps } from './delivery-follow-ups.js';

const spans = [] as SpanDigest[];
const run = (deferred: string[], sessionId?: string): TraceRun =>
  ({
    traceId: 't1',
    phase: 'deterministic',
    state: 'scored',
    results: [{ deferred, outcomes: [] }],
    ...(sessionId && { sessionId, reasonCode: 'session_test_case' }),
  }) as unknown as TraceRun;

describe('deliveryFollowUps', () => {
  it('keeps the spans only for a judge pass the driver runs, or a session it assembles', () => {
    const both = { judges: true, assemblesSessions: true };
    expect(deliveryFollowUps(run([]), 't1', spans, both)).toBeUndefined();
    expect(deliveryFollowUps(run(['judged']), 't1', spans, both)).toEqual({
      judge: true,
      turn: undefined,
      spans,
    });
    expect(
      deliveryFollowUps(run(['judged']), 't1', spans, { judges: false, assemblesSessions: true }),
    ).toBeUndefined();
    expect(deliveryFollowUps(run([], 's1'), 't1', spans, both)).toEqual({
      judge: false,
      turn: { sessionId: 's1', traceId: 't1', ends: false, tagged: true },
      spans,
    });
    expect(
      deliveryFollowUps(run([], 's1'), 't1', spans, { judges: true, assemblesSessions: false }),
    ).toBeUndefined();
  });

  it("prunes a session turn's spans to what session scoring reads, unless a judge pass needs them all", () => {
    const span = (spanId: string, parentSpanId: string, name: string, attributes: object) =>
      ({
        traceId: 'a'.repeat(32),
        spanId,
        parentSpanId,
        name,
        kind: 1,
        startTimeUnixNano: 1n,
        endTimeUnixNano: 2n,
        attributes,
        events: [],
        statusCode: 0,
        statusMessage: '',
        serviceName: 'support',
        serviceVersion: '',
        deploymentEnvironment: '',
        scopeName: '',
      }) as SpanDigest;
    const root = span('r', '', 'invoke_agent support', { 'gen_ai.operation.name': 'invoke_agent' });
    const http = span('h', 'r', 'GET /orders', { 'http.request.method': 'GET' });
    const tool = span('t', 'r', 'execute_tool lookup_order', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
    });
    const whole = [root, http, tool];
    const both = { judges: true, assemblesSessions: true };
    expect(deliveryFollowUps(run([], 's1'), 't1', whole, both)?.spans).toEqual([root, tool]);
    expect(deliveryFollowUps(run(['judged'], 's1'), 't1', whole, both)?.spans).toBe(whole);
  });
});

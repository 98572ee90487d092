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
});

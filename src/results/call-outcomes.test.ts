import { describe, expect, it } from 'vitest';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { sessionTrace } from '../normalize/session-trace.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import type { TraceRun } from '../score/trace-run.js';
import { callOutcomes, storedCallOutcomes } from './call-outcomes.js';

/** A deterministic pass over `trace` with one scored outcome, as the per-trace loop makes it. */
function runOf(trace: NormalizedTrace, more: Partial<TraceRun> = {}): TraceRun {
  return {
    traceId: trace.traceId,
    phase: 'all',
    state: 'scored',
    reason: undefined,
    reasonCode: undefined,
    testCaseId: undefined,
    testCaseIdAttribute: undefined,
    serviceName: trace.serviceName,
    serviceVersion: trace.serviceVersion,
    deploymentEnvironment: '',
    diagnostics: [],
    results: [
      {
        phase: 'all',
        trace,
        kind: 'rule',
        suite: 'rule:tool-health',
        testCaseId: 'rule:tool-health',
        testCase: undefined,
        outcomes: [
          {
            scorer: 'tool_errors',
            kind: 'deterministic',
            result: { status: 'scored', score: 1, label: 'pass', reason: '', details: {} },
          },
        ],
        deferred: [],
        startUnixNano: 0n,
        endUnixNano: 0n,
      },
    ],
    ...more,
  };
}

describe('callOutcomes', () => {
  it('is the facts themselves when no call failed: nothing is allocated', () => {
    const run = runOf(agentTrace(['search', 'book']));
    expect(callOutcomes(run)).toBe(toolCallFacts(run));
  });

  it('adds the error text and trace id of each failed call', () => {
    const trace = agentTrace(['search', { name: 'book', error: 'card 4242 declined' }]);
    const outcomes = callOutcomes(runOf(trace));
    expect(outcomes.map(o => [o.tool, o.outcome, o.error, o.traceId])).toEqual([
      ['search', 'ok', undefined, undefined],
      ['book', 'error', 'card 4242 declined', trace.traceId],
    ]);
  });

  it('names the turn’s own trace for a call of a session’s pass', () => {
    const first = agentTrace([{ name: 'lookup', error: 'not found' }], { atMs: 0 });
    const second = agentTrace([{ name: 'refund', error: 'refused' }], { atMs: 60_000 });
    const session = sessionTrace('conv-1', [first, second]);
    const run = runOf(session, {
      traceId: second.traceId,
      session: { id: 'conv-1', part: 1, traceIds: [first.traceId, second.traceId] },
    });
    expect(callOutcomes(run).map(o => [o.tool, o.traceId])).toEqual([
      ['lookup', first.traceId],
      ['refund', second.traceId],
    ]);
  });

  it('counts nothing for the judge pass, as the per-tool counters do', () => {
    const run = runOf(agentTrace([{ name: 'book', error: 'boom' }]), { phase: 'llm' });
    expect(callOutcomes(run)).toEqual([]);
  });

  it('reads a stored record’s calls back, with their outcome and error', () => {
    const call = { rawName: 'x', source: 'executed' as const, spanId: 's', convention: 'c' };
    expect(
      storedCallOutcomes({
        serviceName: 'shop',
        serviceVersion: null,
        toolCalls: [
          { ...call, name: 'a', status: 'ok', outcome: 'ok', error: null },
          { ...call, name: 'b', status: 'error', outcome: 'refused', error: 'no such tool' },
          // A record written before outcomes: its status says.
          { ...call, name: 'c', status: 'error', error: 'boom' },
        ],
      }),
    ).toEqual([
      { service: 'shop', version: '', tool: 'a', outcome: 'ok', error: undefined },
      { service: 'shop', version: '', tool: 'b', outcome: 'refused', error: 'no such tool' },
      { service: 'shop', version: '', tool: 'c', outcome: 'error', error: 'boom' },
    ]);
  });
});

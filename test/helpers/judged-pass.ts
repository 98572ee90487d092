import type { TraceRun } from '../../src/score/trace-run.js';
import { scored } from '../../src/score/score-result.js';
import type { agentTrace } from './trace-builder.js';

/** A deterministic pass deferring `rubric` to the judge, or the judge pass adding its result. */
export function judgedPass(
  trace: ReturnType<typeof agentTrace>,
  phase: 'deterministic' | 'llm',
): TraceRun {
  const now = BigInt(Date.now()) * 1_000_000n;
  const scorer = phase === 'llm' ? 'rubric' : 'tool_correctness';
  return {
    traceId: trace.traceId,
    phase,
    state: 'scored',
    reason: undefined,
    reasonCode: undefined,
    testCaseId: 'weather',
    testCaseIdAttribute: 'spanscore.test_case.id',
    serviceName: trace.serviceName,
    serviceVersion: '',
    deploymentEnvironment: '',
    diagnostics: [],
    results: [
      {
        phase,
        trace,
        kind: 'test_case',
        suite: 'travel',
        testCaseId: 'weather',
        testCase: { id: 'weather', expectedTools: ['get_weather'], scorers: [] },
        outcomes: [
          {
            scorer,
            kind: phase === 'llm' ? 'llm' : 'deterministic',
            version: 'abcdefabcdef',
            result: scored(phase === 'llm' ? 0.5 : 1, 0.7, `${scorer} said so`, {
              ...(phase === 'llm' && { usage: { costUsd: 0.0021 } }),
            }),
          },
        ],
        deferred: phase === 'llm' ? [] : ['rubric'],
        startUnixNano: now,
        endUnixNano: now,
      },
    ],
  };
}

import { describe, expect, it } from 'vitest';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { RESULT_BOUNDS } from '../results/result-bounds.js';
import type { ScorerOutcome } from '../score/run-scorers.js';
import type { TestCase } from '../score/test-case.js';
import { evaluationSpanId, scoreToSpan } from './score-to-span.js';

const trace = agentTrace(['search', 'weather', 'search'], { testCaseId: 'tc-7' });
const testCase: TestCase = { id: 'tc-7', scorers: [], expectedTools: ['weather', 'maps'] };
const time = { startUnixNano: 1_000n, endUnixNano: 2_000n };

describe('scoreToSpan', () => {
  it('puts a scored result in the evaluated trace, under its root, with every attribute', () => {
    const outcome: ScorerOutcome = {
      scorer: 'tool_correctness',
      kind: 'deterministic',
      result: {
        status: 'scored',
        score: 0,
        label: 'fail',
        reason: 'missing maps; unexpected search',
        details: { missingTools: ['maps'], unexpectedTools: ['search'] },
      },
    };
    const span = scoreToSpan(trace, outcome, testCase, time);
    expect(span).toMatchObject({
      traceId: trace.traceId,
      parentSpanId: trace.root!.spanId,
      name: 'evaluation tool_correctness',
      statusCode: 0,
      link: { traceId: trace.traceId, spanId: trace.root!.spanId },
    });
    expect(span.attributes).toEqual({
      'gen_ai.evaluation.name': 'tool_correctness',
      'gen_ai.evaluation.score.value': 0,
      'gen_ai.evaluation.score.label': 'fail',
      'gen_ai.evaluation.explanation': 'missing maps; unexpected search',
      'spanscore.evaluation.status': 'scored',
      'spanscore.scorer.kind': 'deterministic',
      'spanscore.tools_used': ['search', 'weather'],
      'spanscore.tool_sequence': ['search', 'weather', 'search'],
      'spanscore.test_case.id': 'tc-7',
      'spanscore.expected_tools': ['weather', 'maps'],
      'spanscore.missing_tools': ['maps'],
      'spanscore.unexpected_tools': ['search'],
      'spanscore.evaluated.service.name': 'test-service',
    });
    expect(span.event).toEqual({
      name: 'gen_ai.evaluation.result',
      timeUnixNano: 2_000n,
      attributes: {
        'gen_ai.evaluation.name': 'tool_correctness',
        'gen_ai.evaluation.score.value': 0,
        'gen_ai.evaluation.score.label': 'fail',
        'gen_ai.evaluation.explanation': 'missing maps; unexpected search',
        'spanscore.evaluation.status': 'scored',
      },
    });
  });

  it('states the expected tools as the results store does: calls over tools, a session by its turns', () => {
    const outcome: ScorerOutcome = {
      scorer: 'tool_correctness',
      kind: 'deterministic',
      result: { status: 'scored', score: 1, label: 'pass', reason: 'ok', details: {} },
    };
    const expected = (tc: TestCase) =>
      scoreToSpan(trace, outcome, tc, time).attributes['spanscore.expected_tools'];
    // Both stated: the calls win (forbidden ones left out), as in the stored result and reports.
    expect(
      expected({
        id: 'tc-7',
        scorers: [],
        expectedTools: ['maps'],
        expectedCalls: [{ name: 'weather' }, { name: 'delete_all', forbidden: true }],
      }),
    ).toEqual(['weather']);
    expect(
      expected({
        id: 'tc-7',
        scorers: [],
        turns: [{ expectedTools: ['search'] }, { expectedCalls: [{ name: 'book' }] }],
      }),
    ).toEqual(['search', 'book']);
    expect(expected({ id: 'tc-7', scorers: [] })).toBeUndefined();
  });

  it("names the scorer's version and the evaluated agent when known", () => {
    const named = agentTrace(['search'], { testCaseId: 'tc-8' });
    const withAgent = {
      ...named,
      agentName: 'travel-agent',
    } as typeof named;
    const span = scoreToSpan(
      withAgent,
      {
        scorer: 'tool_correctness',
        kind: 'deterministic',
        version: '0123456789ab',
        result: { status: 'scored', score: 1, label: 'pass', reason: 'ok', details: {} },
      },
      undefined,
      time,
    );
    expect(span.attributes).toMatchObject({
      'spanscore.scorer.version': '0123456789ab',
      'spanscore.evaluated.agent.name': 'travel-agent',
      'spanscore.evaluated.service.name': 'test-service',
    });
    expect(
      scoreToSpan(
        named,
        { scorer: 'x', kind: 'custom', result: { status: 'skipped', reason: 'r' } },
        undefined,
        time,
      ).attributes,
    ).not.toHaveProperty('spanscore.evaluated.agent.name');
  });

  it('never writes a number for a skipped or failed result; a failure is ERROR with error.type', () => {
    const skipped = scoreToSpan(
      trace,
      {
        scorer: 'contains',
        kind: 'deterministic',
        result: { status: 'skipped', reason: 'no groundTruth' },
      },
      testCase,
      time,
    );
    expect(skipped.attributes['gen_ai.evaluation.score.value']).toBeUndefined();
    expect(skipped.attributes['gen_ai.evaluation.score.label']).toBeUndefined();
    expect(skipped.attributes['spanscore.evaluation.status']).toBe('skipped');
    const failed = scoreToSpan(
      trace,
      {
        scorer: 'judge',
        kind: 'llm',
        result: {
          status: 'failed',
          error: 'judge returned invalid JSON',
          errorType: 'SyntaxError',
        },
      },
      testCase,
      time,
    );
    expect(failed).toMatchObject({ statusCode: 2, statusMessage: 'judge returned invalid JSON' });
    expect(failed.attributes).toMatchObject({
      'error.type': 'SyntaxError',
      'gen_ai.evaluation.explanation': 'judge returned invalid JSON',
      'spanscore.evaluation.status': 'failed',
    });
    expect(failed.attributes['gen_ai.evaluation.score.value']).toBeUndefined();
  });

  it("copies an LLM scorer's model and token usage", () => {
    const span = scoreToSpan(
      trace,
      {
        scorer: 'rubric',
        kind: 'llm',
        result: {
          status: 'scored',
          score: 0.8,
          label: 'pass',
          reason: 'good',
          details: { usage: { model: 'gpt-4o-mini', inputTokens: 812, outputTokens: 64 } },
        },
      },
      testCase,
      time,
    );
    expect(span.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.usage.input_tokens': 812,
      'gen_ai.usage.output_tokens': 64,
    });
  });

  it('carries the first agents and blamed agents within RESULT_BOUNDS, and names what it cut', () => {
    // A route through 1,000 agents of 64 characters, each blamed for a failed call.
    const names = Array.from({ length: 1000 }, (_, i) => `agent_${i}_`.padEnd(64, 'x'));
    const team: NormalizedTrace = {
      ...trace,
      agents: names.map(agent => ({ agent, startTimeUnixNano: 0n, handoff: undefined })),
    };
    const outcome: ScorerOutcome = {
      scorer: 'tool_errors',
      kind: 'deterministic',
      result: {
        status: 'scored',
        score: 0,
        label: 'fail',
        reason: 'every call failed',
        details: { failedCalls: names.map(agent => ({ name: 'search', agent })) },
      },
    };
    const span = scoreToSpan(team, outcome, undefined, time);
    const kept = Math.floor(RESULT_BOUNDS.maxListChars / 64);
    expect(span.attributes['spanscore.agents']).toEqual(names.slice(0, kept));
    expect(span.attributes['spanscore.failing_agents']).toEqual(names.slice(0, kept));
    expect(span.attributes['spanscore.evaluation.cut_attributes']).toEqual([
      `spanscore.agents: ${kept} of 1000 items`,
      `spanscore.failing_agents: ${kept} of 1000 items`,
    ]);
  });

  it('carries at most 256 of 100,000 blamed agents, and says how many were blamed', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `a${i}`);
    const outcome: ScorerOutcome = {
      scorer: 'tool_errors',
      kind: 'deterministic',
      result: {
        status: 'scored',
        score: 0,
        label: 'fail',
        reason: 'every call failed',
        details: { failedCalls: names.map(agent => ({ name: 'search', agent })) },
      },
    };
    const team: NormalizedTrace = {
      ...trace,
      agents: [{ agent: 'a0', startTimeUnixNano: 0n, handoff: undefined }],
    };
    const span = scoreToSpan(team, outcome, undefined, time);
    expect(span.attributes['spanscore.failing_agents']).toEqual(names.slice(0, 256));
    expect(span.attributes['spanscore.evaluation.cut_attributes']).toEqual([
      'spanscore.failing_agents: 256 of 100000 items',
    ]);
  });

  it('derives the span id from (trace, scorer, test case): stable across retries, distinct otherwise', () => {
    // Pinned: `printf '4bf92f3577b34da6a3ce929d0e0e4736\0tool_trajectory\0weather-lisbon' |
    // sha256sum`, first 16 digits (the derivation docs/results-and-dashboards.md gives).
    expect(
      evaluationSpanId('4bf92f3577b34da6a3ce929d0e0e4736', 'tool_trajectory', 'weather-lisbon'),
    ).toBe('e8c12dde02016e05');
    const id = evaluationSpanId(trace.traceId, 'tool_correctness', 'tc-7');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(evaluationSpanId(trace.traceId, 'tool_correctness', 'tc-7')).toBe(id);
    expect(
      new Set([
        id,
        evaluationSpanId(trace.traceId, 'contains', 'tc-7'),
        evaluationSpanId(trace.traceId, 'tool_correctness', 'tc-8'),
        evaluationSpanId('f'.repeat(32), 'tool_correctness', 'tc-7'),
      ]).size,
    ).toBe(4);
  });
});

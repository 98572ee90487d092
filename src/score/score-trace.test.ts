import { describe, expect, it } from 'vitest';
import { createEvaluationSpanSink } from '../emit/evaluation-span-sink.js';
import type { EvaluationSpan } from '../emit/score-to-span.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { parseSuite } from '../suite/load-suite.js';
import { resolveRules } from '../suite/production-rules.js';
import { resolveToolHealth } from '../suite/tool-health-rule.js';
import type { Config } from '../config/config-schema.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { notScoredField } from '../results/not-scored-field.js';
import { defineScorer } from './define-scorer.js';
import type { ResultSink } from './result-sink.js';
import { scoreTrace } from './score-trace.js';
import type { TraceRun } from './trace-run.js';

function recordingExporter() {
  const exported: EvaluationSpan[] = [];
  return {
    exported,
    sink: createEvaluationSpanSink({
      export: (s: readonly EvaluationSpan[]) => (exported.push(...s), Promise.resolve()),
      shutdown: () => Promise.resolve(),
    }),
  };
}

const spans = (testCaseId: string | undefined, tools: string[], service = 'support-bot') =>
  decodeOtlpJson(
    otlpRequest([
      {
        traceId: traceId(77),
        spanId: spanId(77, 1),
        name: 'invoke_agent support',
        service,
        startMs: 0,
        endMs: 9,
        attributes: testCaseId ? { 'spanscore.test_case.id': testCaseId } : {},
      },
      ...tools.map((tool, i) => ({
        traceId: traceId(77),
        spanId: spanId(77, i + 2),
        parentSpanId: spanId(77, 1),
        name: `execute_tool ${tool}`,
        startMs: i + 1,
        endMs: i + 2,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool },
      })),
    ]),
  ).spans;

const suiteOf = (text: string, file = 's.yaml') => parseSuite(text, file, process.cwd());
const REFUND_SUITE =
  'name: support\nscorers: [tool_correctness]\ntestCases: [{ id: refund, expectedTools: [refund] }]\n';

describe('scoreTrace: the one per-trace loop', () => {
  it('scores a trace of a test case with its suite, and production traffic with the matching rules', async () => {
    const suite = await suiteOf(REFUND_SUITE);
    const rules = resolveRules([
      {
        name: 'guard',
        match: { service: 'support-*' },
        scorers: [{ name: 'tool_trajectory', forbiddenTools: ['delete_account'] }],
      },
      { name: 'other-service', match: { service: 'billing' }, scorers: ['tool_trajectory'] },
    ]);
    const { exported, sink } = recordingExporter();
    const plan = { suites: [suite], rules };
    const ofCase = await scoreTrace(traceId(77), spans('refund', ['refund']), plan, {
      sinks: [sink],
    });
    expect(ofCase.state).toBe('scored');
    expect(
      ofCase.results.map(r => [
        r.testCaseId,
        r.outcomes.map(o => o.result.status === 'scored' && o.result.score),
      ]),
    ).toEqual([['refund', [1]]]);

    const production = await scoreTrace(
      traceId(77),
      spans(undefined, ['lookup', 'delete_account']),
      plan,
      { sinks: [sink] },
    );
    expect(production.results.map(r => [r.kind, r.testCaseId, r.outcomes[0]!.result])).toEqual([
      [
        'rule',
        'rule:guard',
        expect.objectContaining({ score: 0, reason: 'forbidden tool called: delete_account' }),
      ],
    ]);
    expect(exported.map(s => s.name)).toEqual([
      'evaluation tool_correctness',
      'evaluation tool_trajectory',
    ]);
    expect(exported[1]!.attributes['spanscore.test_case.id']).toBeUndefined();
  });

  it('ignores a trace of no test case and no matching or sampled rule, exporting nothing', async () => {
    const { exported, sink } = recordingExporter();
    const rules = resolveRules([{ name: 'never', sampleRate: 0, scorers: ['tool_trajectory'] }]);
    const run = await scoreTrace(
      traceId(77),
      spans(undefined, ['x']),
      { suites: [], rules },
      { sinks: [sink] },
    );
    expect(run.results).toEqual([]);
    expect(run.state).toBe('not_scored');
    expect(exported).toEqual([]);
  });

  it.each([
    {
      what: 'nothing is configured',
      suites: [] as string[],
      rules: [] as Parameters<typeof resolveRules>[0],
      testCaseId: 'refund',
      reason: 'no suites or production rules are configured, and tool health is off',
      code: 'nothing_configured',
    },
    {
      what: 'the trace has no test case id',
      suites: [REFUND_SUITE],
      rules: [],
      testCaseId: undefined,
      reason:
        'no test case id attribute (spanscore.test_case.id, ai.telemetry.metadata.testCaseId, test_case.id, gen_ai.test_case.id, langfuse.trace.metadata.testCaseId, mastra.metadata.testCaseId, langsmith.metadata.testCaseId, genkit:metadata:testCaseId, metadata.testCaseId)',
      code: 'no_test_case_id',
    },
    {
      what: 'no suite has its test case',
      suites: [REFUND_SUITE],
      rules: [],
      testCaseId: 'cancel',
      reason: 'test case "cancel" is in no suite (support)',
      code: 'unknown_test_case',
    },
    {
      what: 'no rule matches the root span',
      suites: [],
      rules: [{ name: 'billing', match: { service: 'billing' }, scorers: ['tool_trajectory'] }],
      testCaseId: undefined,
      reason:
        'no production rule matched (service "support-bot", root span "invoke_agent support")',
      code: 'no_rule_matched',
    },
    {
      what: 'the matching rule sampled it out',
      suites: [REFUND_SUITE],
      rules: [{ name: 'tenth', sampleRate: 0, scorers: ['tool_trajectory'] }],
      testCaseId: undefined,
      reason:
        'no test case id attribute (spanscore.test_case.id, ai.telemetry.metadata.testCaseId, test_case.id, gen_ai.test_case.id, langfuse.trace.metadata.testCaseId, mastra.metadata.testCaseId, langsmith.metadata.testCaseId, genkit:metadata:testCaseId, metadata.testCaseId); sampled out by rule tenth',
      code: 'sampled_out',
    },
  ])(
    'says why a trace was not scored when $what',
    async ({ suites, rules, testCaseId, reason, code }) => {
      const plan = {
        suites: await Promise.all(suites.map(text => suiteOf(text))),
        rules: resolveRules(rules),
      };
      const run = await scoreTrace(traceId(77), spans(testCaseId, ['refund']), plan);
      expect(run).toMatchObject({
        state: 'not_scored',
        reason,
        reasonCode: code,
        testCaseId,
        results: [],
      });
    },
  );

  it("counts a trace no rule matched under one field whatever its names' parentheses", async () => {
    const plan = {
      suites: [],
      rules: resolveRules([
        { name: 'billing', match: { service: 'billing' }, scorers: ['tool_trajectory'] },
      ]),
    };
    const fields = new Set<string>();
    for (const service of ['a) one', 'b) two (x', '(c)', 'plain']) {
      const run = await scoreTrace(traceId(77), spans(undefined, [], service), plan);
      fields.add(notScoredField(run.reason!));
    }
    // The names stay in the reason, shown with brackets; the counted field has none of them.
    expect([...fields]).toEqual([notScoredField('no production rule matched')]);
  });

  describe('tool health', () => {
    const health = (sampleRate: number) =>
      resolveToolHealth({
        toolHealth: {
          enabled: true,
          sampleRate,
          maxErrorRate: 0,
          minRepeats: 3,
          assertFormats: false,
          maxToolsPerService: 30,
        },
        results: { storeContent: true } as Config['results'],
      });

    it('scores a trace no suite or rule claims with the three reference-free scorers', async () => {
      const run = await scoreTrace(traceId(78), spans(undefined, ['refund']), {
        suites: [],
        rules: [],
        toolHealth: health(1),
      });
      expect(run.state).toBe('scored');
      expect(
        run.results.map(r => [r.kind, r.suite, r.testCaseId, r.outcomes.map(o => o.scorer)]),
      ).toEqual([
        [
          'rule',
          'rule:tool-health',
          'rule:tool-health',
          ['tool_errors', 'tool_arguments', 'tool_loops'],
        ],
      ]);
    });

    it('leaves a trace a suite or rule scores to them', async () => {
      const run = await scoreTrace(traceId(79), spans('refund', ['refund']), {
        suites: [await suiteOf(REFUND_SUITE)],
        rules: resolveRules([{ name: 'all', scorers: ['tool_correctness'] }]),
        toolHealth: health(1),
      });
      expect(run.results.map(r => r.testCaseId)).toEqual(['refund']);
      const ruled = await scoreTrace(traceId(80), spans(undefined, ['refund']), {
        suites: [],
        rules: resolveRules([{ name: 'all', scorers: ['tool_correctness'] }]),
        toolHealth: health(1),
      });
      expect(ruled.results.map(r => r.testCaseId)).toEqual(['rule:all']);
    });

    it('leaves a trace without tool calls unscored, and says why', async () => {
      const run = await scoreTrace(traceId(82), spans(undefined, []), {
        suites: [],
        rules: [],
        toolHealth: health(1),
      });
      expect(run).toMatchObject({
        state: 'not_scored',
        reason: 'no tool calls recorded: tool health scores the traces that call tools',
        reasonCode: 'no_tool_calls',
        results: [],
      });
    });

    it('says when its sample left the trace out', async () => {
      const run = await scoreTrace(traceId(81), spans(undefined, ['refund']), {
        suites: [],
        rules: [],
        toolHealth: health(0),
      });
      expect(run).toMatchObject({
        state: 'not_scored',
        reason: 'sampled out of tool health (toolHealth.sampleRate)',
        reasonCode: 'sampled_out',
      });
    });
  });

  it('normalizes the trace once for every suite and rule with the same aliases', async () => {
    const a = await suiteOf(REFUND_SUITE, 'a.yaml');
    const b = await suiteOf(REFUND_SUITE.replace('support', 'support-2'), 'b.yaml');
    const aliased = await suiteOf(
      'name: aliased\naliases: { refund: issue_refund }\nscorers: [tool_correctness]\ntestCases: [{ id: refund, expectedTools: [issue_refund] }]\n',
      'c.yaml',
    );
    const run = await scoreTrace(traceId(77), spans('refund', ['refund']), {
      suites: [a, b, aliased],
      rules: [],
    });
    expect(run.results.map(r => r.suite)).toEqual(['support', 'support-2', 'aliased']);
    expect(run.results[0]!.trace).toBe(run.results[1]!.trace);
    expect(run.results[2]!.trace).not.toBe(run.results[0]!.trace);
    expect(run.results[2]!.trace.toolSequence[0]!.canonicalName).toBe('issue_refund');
    expect(run.results.map(r => r.outcomes[0]!.result)).toMatchObject([
      { score: 1 },
      { score: 1 },
      { score: 1 },
    ]);
  });

  it("gives scorers the trace's test case id as the suite reads it, with its own id attributes", async () => {
    const suite = await suiteOf(
      'name: custom-ids\ntestCaseIdAttributes: [run.case]\nscorers: [tool_correctness]\ntestCases: [{ id: refund, expectedTools: [refund] }]\n',
    );
    const trace = spans(undefined, ['refund']).map((s, i) =>
      i === 0 ? { ...s, attributes: { ...s.attributes, 'run.case': 'refund' } } : s,
    );
    const run = await scoreTrace(traceId(77), trace, { suites: [suite], rules: [] });
    expect(run.results.map(r => [r.testCaseId, r.trace.testCaseId])).toEqual([
      ['refund', 'refund'],
    ]);
    // The run record says where matching read the id.
    expect(run.testCaseIdAttribute).toBe('run.case');
  });

  it('runs the scorers of the phase, and lists the LLM scorers the deterministic phase left', async () => {
    const judged = defineScorer({
      name: 'judged',
      kind: 'llm',
      score: () => ({ score: 0.5, label: 'fail', reason: 'judged' }),
    });
    const suite = await suiteOf(REFUND_SUITE);
    const plan = {
      suites: [
        {
          ...suite,
          byId: new Map([
            [
              'refund',
              {
                ...suite.byId.get('refund')!,
                scorers: [...suite.byId.get('refund')!.scorers, { scorer: judged, options: {} }],
              },
            ],
          ]),
        },
      ],
      rules: [],
    };
    const trace = spans('refund', ['refund']);
    const det = await scoreTrace(traceId(77), trace, plan, { phase: 'deterministic' });
    expect(det.results[0]!.outcomes.map(o => o.scorer)).toEqual(['tool_correctness']);
    expect(det.results[0]!.deferred).toEqual(['judged']);
    const llm = await scoreTrace(traceId(77), trace, plan, { phase: 'llm' });
    expect(llm.results[0]!.outcomes.map(o => o.scorer)).toEqual(['judged']);
    expect(llm.results[0]!.deferred).toEqual([]);
    const all = await scoreTrace(traceId(77), trace, plan);
    expect(all.results[0]!.outcomes.map(o => o.scorer)).toEqual(['tool_correctness', 'judged']);
    // A pass with no scorer of its phase for the test case gives no result for it.
    const none = await scoreTrace(
      traceId(77),
      trace,
      { suites: [suite], rules: [] },
      { phase: 'llm' },
    );
    expect(none.results).toEqual([]);
  });

  it('with judgeSkipped, gives the LLM scorers skipped outcomes, a test case whose scorers are all LLM scorers too', async () => {
    const judged = defineScorer({
      name: 'judged',
      kind: 'llm',
      score: () => ({ score: 0.5, label: 'fail', reason: 'judged' }),
    });
    const suite = await suiteOf(REFUND_SUITE);
    const refund = suite.byId.get('refund')!;
    const planWith = (scorers: typeof refund.scorers) => ({
      suites: [{ ...suite, byId: new Map([['refund', { ...refund, scorers }]]) }],
      rules: [],
    });
    const trace = spans('refund', ['refund']);
    const options = { phase: 'deterministic' as const, judgeSkipped: 'no judge pass: a test' };
    const mixed = await scoreTrace(
      traceId(77),
      trace,
      planWith([...refund.scorers, { scorer: judged, options: {} }]),
      options,
    );
    expect(mixed.results[0]!.outcomes.map(o => [o.scorer, o.result.status])).toEqual([
      ['tool_correctness', 'scored'],
      ['judged', 'skipped'],
    ]);
    expect(mixed.results[0]!.deferred).toEqual([]);
    // Only LLM scorers: still a result, each skipped with the reason (no result at all before).
    const llmOnly = await scoreTrace(
      traceId(77),
      trace,
      planWith([{ scorer: judged, options: {} }]),
      options,
    );
    expect(llmOnly.results).toHaveLength(1);
    expect(llmOnly.results[0]!.outcomes.map(o => [o.scorer, o.result.status])).toEqual([
      ['judged', 'skipped'],
    ]);
    expect(llmOnly.results[0]!.outcomes[0]!.result).toMatchObject({
      reason: 'no judge pass: a test',
    });
  });

  it('hands every run to the sinks in order; a sink that rejects stops the rest and rejects the loop', async () => {
    const suite = await suiteOf(REFUND_SUITE);
    const seen: string[] = [];
    const recording = (name: string): ResultSink => ({
      name,
      write: (run: TraceRun) => void seen.push(`${name}:${run.state}`),
    });
    const failing: ResultSink = {
      name: 'export',
      write: () => Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down')),
    };
    const plan = { suites: [suite], rules: [] };
    await scoreTrace(traceId(77), spans(undefined, []), plan, {
      sinks: [recording('first'), recording('second')],
    });
    expect(seen).toEqual(['first:not_scored', 'second:not_scored']);
    seen.length = 0;
    await expect(
      scoreTrace(traceId(77), spans('refund', ['refund']), plan, {
        sinks: [recording('before'), failing, recording('after')],
      }),
    ).rejects.toMatchObject({ code: 'SS_EXPORT_FAILED' });
    expect(seen).toEqual(['before:scored']);
  });
});

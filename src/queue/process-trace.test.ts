import { describe, expect, it } from 'vitest';
import type { EvaluationSpan } from '../emit/score-to-span.js';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { parseSuite } from '../suite/load-suite.js';
import { resolveRules } from '../suite/production-rules.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { processTrace } from './process-trace.js';

function recordingExporter() {
  const exported: EvaluationSpan[] = [];
  return {
    exported,
    exporter: {
      export: (s: readonly EvaluationSpan[]) => (exported.push(...s), Promise.resolve()),
      shutdown: () => Promise.resolve(),
    },
  };
}

const spans = (testCaseId: string | undefined, tools: string[]) =>
  decodeOtlpJson(
    otlpRequest([
      {
        traceId: traceId(77),
        spanId: spanId(77, 1),
        name: 'invoke_agent support',
        service: 'support-bot',
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

describe('processTrace', () => {
  it('scores a trace of a test case with its suite, and production traffic with the matching rules', async () => {
    const suite = await parseSuite(
      'scorers: [tool_correctness]\ntestCases: [{ id: refund, expectedTools: [refund] }]\n',
      's.yaml',
      process.cwd(),
    );
    const rules = resolveRules([
      {
        name: 'guard',
        match: { service: 'support-*' },
        scorers: [{ name: 'tool_trajectory', forbiddenTools: ['delete_account'] }],
      },
      { name: 'other-service', match: { service: 'billing' }, scorers: ['tool_trajectory'] },
    ]);
    const { exported, exporter } = recordingExporter();
    const ofCase = await processTrace(traceId(77), spans('refund', ['refund']), {
      suites: [suite],
      rules,
      exporter,
    });
    expect(
      ofCase.map(r => [
        r.testCaseId,
        r.outcomes.map(o => o.result.status === 'scored' && o.result.score),
      ]),
    ).toEqual([['refund', [1]]]);

    const production = await processTrace(
      traceId(77),
      spans(undefined, ['lookup', 'delete_account']),
      { suites: [suite], rules, exporter },
    );
    expect(production.map(r => [r.testCaseId, r.outcomes[0]!.result])).toEqual([
      [
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
    const { exported, exporter } = recordingExporter();
    const rules = resolveRules([{ name: 'never', sampleRate: 0, scorers: ['tool_trajectory'] }]);
    expect(
      await processTrace(traceId(77), spans(undefined, ['x']), { suites: [], rules, exporter }),
    ).toEqual([]);
    expect(exported).toEqual([]);
  });
});

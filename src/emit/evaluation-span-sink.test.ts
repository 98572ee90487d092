import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { ExportOutcome } from '../results/stored-result.js';
import { scoreTrace } from '../score/score-trace.js';
import { parseSuite } from '../suite/load-suite.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { createEvaluationSpanSink, evaluationSpansOf } from './evaluation-span-sink.js';
import type { EvaluationSpan } from './score-to-span.js';

/** A trace of test case `refund` that called `lookup`, scored by a suite of two scorers. */
async function scoredRun() {
  const suite = await parseSuite(
    'name: support\nscorers: [tool_correctness, { name: tool_call_accuracy, expectedTool: refund }]\ntestCases: [{ id: refund, expectedTools: [refund] }]\n',
    's.yaml',
    process.cwd(),
  );
  const spans = decodeOtlpJson(
    otlpRequest([
      {
        traceId: traceId(5),
        spanId: spanId(5, 1),
        name: 'invoke_agent support',
        startMs: 0,
        endMs: 9,
        attributes: { 'spanscore.test_case.id': 'refund' },
      },
      {
        traceId: traceId(5),
        spanId: spanId(5, 2),
        parentSpanId: spanId(5, 1),
        name: 'execute_tool lookup',
        startMs: 1,
        endMs: 2,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' },
      },
    ]),
  ).spans;
  return scoreTrace(traceId(5), spans, { suites: [suite], rules: [] });
}

describe('the evaluation span sink', () => {
  it("gives one span an outcome, in the results' order, none for a result without outcomes", async () => {
    const run = await scoredRun();
    const [r] = run.results;
    const spans = evaluationSpansOf({
      ...run,
      results: [r!, { ...r!, outcomes: [] }, { ...r!, outcomes: [r!.outcomes[1]!] }],
    });
    expect(spans.map(s => s.name)).toEqual([
      'evaluation tool_correctness',
      'evaluation tool_call_accuracy',
      'evaluation tool_call_accuracy',
    ]);
    // As long as its spans, every index holding one (no hole).
    expect(spans).toHaveLength(3);
    expect(Object.keys(spans)).toEqual(['0', '1', '2']);
    expect(evaluationSpansOf({ ...run, results: [{ ...r!, outcomes: [] }] })).toEqual([]);
  });

  it('takes the spans when prepared, and exports them when the write runs, reporting the outcome', async () => {
    const exported: EvaluationSpan[] = [];
    const reports: Array<[string, ExportOutcome]> = [];
    const sink = createEvaluationSpanSink(
      {
        export: spans => (exported.push(...spans), Promise.resolve()),
        shutdown: () => Promise.resolve(),
      },
      { report: (id, outcome) => (reports.push([id, outcome]), Promise.resolve()) },
    );
    const run = await scoredRun();
    const send = sink.prepare!(run);
    // What the run held is no longer needed: the write sends what preparing took.
    run.results = [];
    expect(exported).toEqual([]);
    await send();
    expect(exported.map(s => s.name)).toEqual([
      'evaluation tool_correctness',
      'evaluation tool_call_accuracy',
    ]);
    expect(exported.every(s => s.traceId === traceId(5) && s.parentSpanId === spanId(5, 1))).toBe(
      true,
    );
    expect(reports).toEqual([[traceId(5), { state: 'exported' }]]);
  });

  it('delivers a written export whose backlog bookkeeping fails (Redis away right then), and reports it exported', async () => {
    const exported: EvaluationSpan[] = [];
    const reports: Array<[string, ExportOutcome]> = [];
    const sink = createEvaluationSpanSink(
      {
        export: spans => (exported.push(...spans), Promise.resolve()),
        shutdown: () => Promise.resolve(),
      },
      {
        backlog: {
          failed: () => Promise.resolve(),
          settled: () => Promise.reject(new Error('Connection is closed.')),
          stats: () => Promise.resolve({ waiting: 0, oldestAgeSeconds: 0 }),
        },
        report: (id, outcome) => (reports.push([id, outcome]), Promise.resolve()),
      },
    );
    await expect(sink.write(await scoredRun())).resolves.toBeUndefined();
    expect(exported.length).toBeGreaterThan(0);
    expect(reports).toEqual([[traceId(5), { state: 'exported' }]]);
  });

  it('rejects a failed export with its error, keeping the trace in the backlog as pending', async () => {
    const failed: string[] = [];
    const reports: Array<[string, ExportOutcome]> = [];
    const sink = createEvaluationSpanSink(
      {
        export: () => Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down')),
        shutdown: () => Promise.resolve(),
      },
      {
        backlog: {
          failed: id => (failed.push(id), Promise.resolve()),
          settled: () => Promise.resolve(),
          stats: () => Promise.resolve({ waiting: failed.length, oldestAgeSeconds: 0 }),
        },
        report: (id, outcome) => (reports.push([id, outcome]), Promise.resolve()),
      },
    );
    await expect(sink.write(await scoredRun())).rejects.toMatchObject({
      code: 'SS_EXPORT_FAILED',
    });
    expect(failed).toEqual([traceId(5)]);
    expect(reports).toEqual([[traceId(5), { state: 'pending', error: 'backend down' }]]);
  });
});

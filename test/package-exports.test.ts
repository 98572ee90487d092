import { describe, expect, it } from 'vitest';

describe('the public surface', () => {
  it('exports exactly these names (a change here is a change to the API: review it)', async () => {
    const names = Object.keys(await import('../src/index.js')).sort();
    expect(names).toMatchInlineSnapshot(`
      [
        "BUILTIN_SCORERS",
        "DEFAULT_TEST_CASE_ID_ATTRIBUTES",
        "ERROR_CODES",
        "EVALUATION_ATTRIBUTES",
        "EVALUATION_EVENT",
        "SpanscoreError",
        "TEST_CASE_ID_ATTRIBUTE",
        "buildAliasMap",
        "canonicalToolName",
        "compareArguments",
        "createEvaluationExporter",
        "createGraderScorer",
        "createMemoryTraceAssembler",
        "createOtlpHttpReceiver",
        "createReceiverMetrics",
        "currentTestCaseId",
        "decodeOtlpJson",
        "decodeOtlpProtobuf",
        "defineScorer",
        "evaluationSpanId",
        "exitCodeFor",
        "extractToolCalls",
        "findRoot",
        "groupSpansByTrace",
        "isRootSpan",
        "isSpanscoreError",
        "loadSuite",
        "normalizeTrace",
        "parseSuite",
        "processTrace",
        "readTraceFiles",
        "runScorers",
        "scoreSuite",
        "scoreToSpan",
        "stripToolNamespace",
        "summarize",
        "toResultRows",
        "toolCallAccuracy",
        "toolCorrectness",
        "toolTrajectory",
        "toolsUsed",
        "trace",
        "traceReadiness",
        "traced",
        "withTestCase",
      ]
    `);
  });
});

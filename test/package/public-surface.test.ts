import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { describe, expect, it } from 'vitest';

// The package's public surface: what `spanscore` and `spanscore/vitest` export, the API reports
// API Extractor makes of their declarations (built into dist/ by test/setup/build-dist.global.ts),
// and docs/api.md. A change to any of them is a change to the API: review it, then `npm run api`.
const ROOT = new URL('../../', import.meta.url).pathname;

/** Runs API Extractor as CI does (not `--local`): fails when the report in etc/ differs. */
function checkReport(configFile: string): { succeeded: boolean; changed: boolean } {
  const config = ExtractorConfig.loadFileAndPrepare(join(ROOT, configFile));
  const result = Extractor.invoke(config, {
    localBuild: false,
    // Its messages go to the report; the console would only repeat them.
    messageCallback: message => {
      message.handled = true;
    },
  });
  return { succeeded: result.succeeded, changed: result.apiReportChanged };
}

/** The names a report declares as exported. */
function reportedNames(report: string): string[] {
  return [
    ...report.matchAll(/^export (?:declare )?(?:function|const|class|interface|type|enum) (\w+)/gm),
  ].map(m => m[1]!);
}

describe('the public surface', () => {
  it('spanscore exports exactly these values (a change here is a change to the API)', async () => {
    const names = Object.keys(await import('../../src/index.js')).sort();
    expect(names).toEqual([
      'DEFAULT_SESSION_ID_ATTRIBUTES',
      'ERROR_CODES',
      'EVALUATION_ATTRIBUTES',
      'EVALUATION_EVENT',
      'GEN_AI_TOOL_ATTRIBUTES',
      'SPANSCORE_ATTRIBUTES',
      'SpanscoreError',
      'TEST_CASE_ID_ATTRIBUTE',
      'TraceFileExporter',
      'canonicalToolName',
      'captureTrace',
      'countOutcomes',
      'createEvaluationExporter',
      'createGraderScorer',
      'createOpenAiJudge',
      'createRubricScorer',
      'createToolCallAppropriatenessScorer',
      'currentTestCaseId',
      'decodeOtlpJson',
      'decodeOtlpProtobuf',
      'defineScorer',
      'evaluationSpansOf',
      'extractToolCalls',
      'findSessionId',
      'groupSpansByTrace',
      'inspectTrace',
      'inspectionToJson',
      'isSpanscoreError',
      'loadConfig',
      'loadSuite',
      'normalizeTrace',
      'parseSuite',
      'readTraceFiles',
      'runScorers',
      'scoreSession',
      'scoreSuite',
      'scoreTrace',
      'sessionTrace',
      'startService',
      'toResultRows',
      'toolCallAccuracy',
      'toolCorrectness',
      'toolTrajectory',
      'toolsUsed',
      'trace',
      'traced',
      'withTestCase',
    ]);
  });

  it('spanscore/vitest exports exactly these values', async () => {
    const names = Object.keys(await import('../../src/vitest/index.js')).sort();
    expect(names).toEqual(['captureSession', 'captureTrace', 'toolMatchers']);
  });

  it.each([
    ['api-extractor.json', 'etc/spanscore.api.md'],
    ['api-extractor.vitest.json', 'etc/spanscore-vitest.api.md'],
  ])('the declarations match the reviewed API report (%s → %s)', (config, report) => {
    const outcome = checkReport(config);
    expect(
      outcome,
      `${report} is not the surface the declarations export: review the change, then npm run api`,
    ).toEqual({ succeeded: true, changed: false });
  });

  it('docs/api.md names every export of both entry points', async () => {
    const docs = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
    const documented = new Set([...docs.matchAll(/`(\w+)`/g)].map(m => m[1]));
    const exported = [
      ...reportedNames(await readFile(join(ROOT, 'etc/spanscore.api.md'), 'utf8')),
      ...reportedNames(await readFile(join(ROOT, 'etc/spanscore-vitest.api.md'), 'utf8')),
    ];
    expect(exported.length).toBeGreaterThan(100);
    expect(exported.filter(name => !documented.has(name))).toEqual([]);
  });
});

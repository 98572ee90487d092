import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { scoreSuite } from '../../src/score/score-suite.js';
import { loadSuite } from '../../src/suite/load-suite.js';

const ROOT = new URL('../../', import.meta.url).pathname;
// demo.yaml scores the demo agent (its wrong-tool case fails on purpose); the demo test covers it.
const suites = readdirSync(join(ROOT, 'config/suites')).filter(
  f => /\.(ya?ml|json)$/.test(f) && f !== 'demo.yaml',
);

/**
 * Captures of instrumentations that record no tool call at all: every expectation fails on them,
 * as it should (test/diagnostics covers what spanscore says about them). And one that records
 * names without arguments (message content capture off), on which argument expectations fail;
 * test/golden/framework-captures.test.ts scores it on names.
 */
const TOOL_BLIND = new Set([
  'captured-llamaindex-0.12.1-traceloop-0.27.0.otlp.json',
  'captured-opentelemetry-openai-0.21.0-no-content.otlp.json',
]);
const fixtures = readdirSync(join(ROOT, 'test/fixtures/otlp'))
  .filter(f => !TOOL_BLIND.has(f))
  .map(f => join(ROOT, 'test/fixtures/otlp', f));

describe('the example suites in config/suites', () => {
  it.each(suites)('%s passes on the fixtures, every test case found and scored', async file => {
    const suite = await loadSuite(join(ROOT, 'config/suites', file));
    const read = await readTraceFiles(fixtures);
    const run = await scoreSuite(read.spans, suite);
    expect(run.missing).toEqual([]);
    const outcomes = run.scored.flatMap(s =>
      s.outcomes.map(o => ({
        testCase: s.testCaseId,
        scorer: o.scorer,
        status: o.result.status,
        label: o.result.status === 'scored' ? o.result.label : undefined,
      })),
    );
    expect(outcomes.filter(o => o.status !== 'scored' || o.label !== 'pass')).toEqual([]);
    expect(new Set(outcomes.map(o => o.testCase)).size).toBe(suite.cases.length);
  });
});

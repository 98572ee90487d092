import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { scoreSuite } from '../../src/score/score-suite.js';
import { loadSuite, parseSuite } from '../../src/suite/load-suite.js';

/**
 * Every framework capture of `npm run capture-fixtures` (captures/: the three scenarios of
 * captures/scenarios.ts against each framework's pinned release) scored with
 * config/suites/framework-captures.yaml: `tool_correctness` and `tool_trajectory` (exact order,
 * arguments as a subset) pass on each scenario, and fail when the expectations are deliberately
 * wrong. That each capture yields exactly its calls, once each, is the golden test's.
 */
const CAPTURES = [
  'captured-langfuse-5.11.1',
  'captured-langchain-openinference-1.5.14',
  'captured-langchain-openinference-scripted-model-1.5.14',
  'captured-ai-sdk-6.0.325',
  'captured-ai-sdk-7.0.173',
  'captured-traceloop-sdk-0.27.0',
  'captured-mastra-1.71.0',
  'captured-mastra-1.71.0-arize-1.3.8',
  'captured-langsmith-0.12.0',
  'captured-openai-agents-0.20.0',
  'captured-google-adk-2.0.0',
  'captured-mcp-1.32.2-traceloop-0.27.0',
  'captured-mcp-1.32.2-traceloop-0.27.0-shared-session',
  'captured-genkit-1.42.0',
  'captured-anthropic-1.14.0-openinference-0.2.8',
  'captured-ai-sdk-7.0.173-openinference-vercel-3.2.1',
  'captured-langgraph-1.7.3-openinference-4.1.1',
  'captured-langgraph-1.7.3-openinference-4.1.1-metadata',
  'captured-mcp-1.32.2-openinference-0.2.33',
  'captured-voltagent-2.10.0',
  'captured-strands-1.19.0',
  // Tool calls in OTLP log records (the messages of each chat span), joined to their spans.
  'captured-opentelemetry-openai-0.21.0',
  'captured-elastic-openai-0.5.1-openai-4.104.0',
  'captured-openlit-1.15.0',
];

/** Captures with traces of no test case: the MCP client's session trace holding its tool spans. */
const SESSION_TRACES: Record<string, number> = {
  'captured-mcp-1.32.2-traceloop-0.27.0-shared-session': 1,
};

const SUITE = new URL('../../config/suites/framework-captures.yaml', import.meta.url).pathname;
const fixture = (name: string): string =>
  new URL(`../fixtures/otlp/${name}.otlp.json`, import.meta.url).pathname;

/** The same scenarios expected wrongly, each as a wrong run would be. */
const WRONG = `
scorers: [{ name: tool_trajectory, match: exact, args: subset }]
testCases:
  - id: one-tool # the wrong city
    expectedCalls: [{ name: get_weather, args: { city: Lisbon } }]
  - id: two-tools-in-order # the order swapped
    expectedCalls: [{ name: book_flight }, { name: search_flights }]
  - id: same-tool-twice # one call expected, two made
    expectedCalls: [{ name: get_weather, args: { city: Paris } }]
`;

describe.each(CAPTURES)('framework capture %s', name => {
  it('passes tool_correctness and tool_trajectory (exact, args subset) on all three scenarios', async () => {
    const read = await readTraceFiles([fixture(name)]);
    expect(read.problems).toEqual([]);
    const run = await scoreSuite(read.spans, await loadSuite(SUITE));
    expect(run.missing).toEqual([]);
    expect(run.unmatched).toHaveLength(SESSION_TRACES[name] ?? 0);
    const labels = run.scored.flatMap(t =>
      t.outcomes.map(o => [t.testCaseId, o.scorer, o.result.status === 'scored' && o.result.label]),
    );
    expect(labels.sort()).toEqual(
      ['one-tool', 'two-tools-in-order', 'same-tool-twice']
        .flatMap(id => [
          [id, 'tool_correctness', 'pass'],
          [id, 'tool_trajectory', 'pass'],
        ])
        .sort(),
    );
  });

  it('fails tool_trajectory on each scenario when the expected run is wrong', async () => {
    const wrong = await parseSuite(WRONG, 'framework-captures-wrong.yaml', '.');
    const read = await readTraceFiles([fixture(name)]);
    const run = await scoreSuite(read.spans, wrong);
    const trajectory = Object.fromEntries(
      run.scored.map(t => {
        const o = t.outcomes.find(x => x.scorer === 'tool_trajectory')!;
        return [t.testCaseId, o.result.status === 'scored' && o.result.label];
      }),
    );
    expect(trajectory).toEqual({
      'one-tool': 'fail',
      'two-tools-in-order': 'fail',
      'same-tool-twice': 'fail',
    });
  });
});

describe('framework capture captured-opentelemetry-openai-0.21.0-no-content', () => {
  // Without message content the log records keep each call's tool name and id, not its arguments.
  const name = 'captured-opentelemetry-openai-0.21.0-no-content';
  const NAMES_ONLY = `
scorers: [tool_correctness, { name: tool_trajectory, match: exact, args: ignore }]
testCases:
  - { id: one-tool, expectedTools: [get_weather], expectedCalls: [{ name: get_weather }] }
  - id: two-tools-in-order
    expectedTools: [search_flights, book_flight]
    expectedCalls: [{ name: search_flights }, { name: book_flight }]
  - id: same-tool-twice
    expectedTools: [get_weather]
    expectedCalls: [{ name: get_weather }, { name: get_weather }]
`;

  it('passes on tool names and order, and fails when the order or count is wrong', async () => {
    const read = await readTraceFiles([fixture(name)]);
    expect(read.problems).toEqual([]);
    expect(read.logRecords).toBe(25);
    const labels = async (yaml: string) =>
      Object.fromEntries(
        (await scoreSuite(read.spans, await parseSuite(yaml, 'names.yaml', '.'))).scored.flatMap(
          t =>
            t.outcomes.map(o => [
              `${t.testCaseId} ${o.scorer}`,
              o.result.status === 'scored' && o.result.label,
            ]),
        ),
      );
    expect(await labels(NAMES_ONLY)).toEqual({
      'one-tool tool_correctness': 'pass',
      'one-tool tool_trajectory': 'pass',
      'two-tools-in-order tool_correctness': 'pass',
      'two-tools-in-order tool_trajectory': 'pass',
      'same-tool-twice tool_correctness': 'pass',
      'same-tool-twice tool_trajectory': 'pass',
    });
    const wrong = await labels(WRONG.replace('args: subset', 'args: ignore'));
    expect(wrong).toEqual({
      'one-tool tool_trajectory': 'pass', // only the city was wrong, and arguments are not recorded
      'two-tools-in-order tool_trajectory': 'fail',
      'same-tool-twice tool_trajectory': 'fail',
    });
  });
});

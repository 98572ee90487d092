import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { defineScorer } from '../score/define-scorer.js';
import { scoreTrace } from '../score/score-trace.js';
import type { ScoringPlan } from '../score/scoring-plan.js';
import { parseSuite } from '../suite/load-suite.js';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import { compactRecordLine, decodeCompactRecord } from './compact-run-record.js';
import { MAX_CONTENT_CHARS } from './stored-result.js';
import { runRecordPatch, toStoredResults } from './to-stored-results.js';

/** The AI SDK 7's tool-health capture: its `invalid-arguments` run calls convert_currency wrongly. */
const CAPTURE = new URL(
  '../../test/fixtures/otlp/captured-ai-sdk-7.0.173-health.otlp.json',
  import.meta.url,
).pathname;

async function invalidArgumentsTrace(): Promise<[string, SpanDigest[]]> {
  const read = await readTraceFiles([CAPTURE]);
  expect(read.problems).toEqual([]);
  for (const [traceId, spans] of groupSpansByTrace(read.spans))
    if (spans.some(s => s.attributes['spanscore.test_case.id'] === 'invalid-arguments'))
      return [traceId, spans];
  throw new Error('the capture has no invalid-arguments run');
}

const judged = defineScorer({
  name: 'judged',
  kind: 'llm',
  score: () => ({ score: 1, label: 'pass', reason: 'judged' }),
});

/** A plan whose one test case runs `scorers` and the LLM scorer above. */
async function planWith(scorers: string[]): Promise<ScoringPlan> {
  const suite = await parseSuite(
    `name: health\nscorers: [${scorers.join(', ')}]\ntestCases: [{ id: invalid-arguments }]\n`,
    'health.yaml',
    process.cwd(),
  );
  const testCase = suite.byId.get('invalid-arguments')!;
  const withJudge = {
    ...testCase,
    scorers: [...testCase.scorers, { scorer: judged, options: {} }],
  };
  return {
    suites: [{ ...suite, cases: [withJudge], byId: new Map([['invalid-arguments', withJudge]]) }],
    rules: [],
  };
}

describe('runRecordPatch', () => {
  it("keeps each call's argument problems in the judge pass's record, where tool_arguments scored the trace", async () => {
    const [traceId, spans] = await invalidArgumentsTrace();
    const plan = await planWith(['tool_arguments']);
    const problemsOf = async (phase: 'deterministic' | 'llm') => {
      const run = await scoreTrace(traceId, spans, plan, { phase });
      expect(run.results[0]!.outcomes.map(o => o.scorer)).toEqual(
        phase === 'llm' ? ['judged'] : ['tool_arguments'],
      );
      return runRecordPatch(run, 0, true).toolCalls.map(c => [c.name, c.argumentProblems]);
    };
    const deterministic = await problemsOf('deterministic');
    // The refused call (its arguments failed the schema), then the model's corrected call.
    expect(deterministic).toEqual([
      ['convert_currency', ['/amount: must be number', "/: must have required property 'to'"]],
      ['convert_currency', []],
    ]);
    // The judge pass's record replaces the one before it: it says the same of the arguments.
    expect(await problemsOf('llm')).toEqual(deterministic);
  });

  it('states no argument problems where tool_arguments does not score the trace', async () => {
    const [traceId, spans] = await invalidArgumentsTrace();
    const plan = await planWith(['tool_errors']);
    for (const phase of ['deterministic', 'llm'] as const) {
      const run = await scoreTrace(traceId, spans, plan, { phase });
      const calls = runRecordPatch(run, 0, true).toolCalls;
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every(c => !('argumentProblems' in c))).toBe(true);
    }
  });
});

describe('toStoredResults', () => {
  it("gives one result an outcome, in the results' order, none for a result without outcomes", async () => {
    const [traceId, spans] = await invalidArgumentsTrace();
    const run = await scoreTrace(traceId, spans, await planWith(['tool_errors']));
    const [r] = run.results;
    expect(r!.outcomes.map(o => o.scorer)).toEqual(['tool_errors', 'judged']);
    const stored = toStoredResults({
      ...run,
      results: [{ ...r!, outcomes: [r!.outcomes[1]!] }, { ...r!, outcomes: [] }, r!],
    });
    expect(stored.map(s => s.scorer)).toEqual(['judged', 'tool_errors', 'judged']);
    // As long as its results, every index holding one (no hole).
    expect(stored).toHaveLength(3);
    expect(Object.keys(stored)).toEqual(['0', '1', '2']);
    expect(toStoredResults({ ...run, results: [{ ...r!, outcomes: [] }] })).toEqual([]);
  });
});

describe('toStoredResults: blamed agents', () => {
  it('keeps the first 16 of 100,000 blamed agents and says how many were blamed', async () => {
    const [traceId, spans] = await invalidArgumentsTrace();
    const run = await scoreTrace(traceId, spans, await planWith(['tool_errors']));
    const r = run.results[0]!;
    const names = Array.from({ length: 100_000 }, (_, i) => `a${i}`);
    const [stored] = toStoredResults({
      ...run,
      results: [
        {
          ...r,
          trace: {
            ...r.trace,
            agents: [{ agent: 'a0', startTimeUnixNano: 0n, handoff: undefined }],
          },
          outcomes: [
            {
              ...r.outcomes[0]!,
              result: {
                status: 'scored',
                score: 0,
                label: 'fail',
                reason: 'every call failed',
                details: { failedCalls: names.map(agent => ({ agent })) },
              },
            },
          ],
        },
      ],
    });
    expect(stored!.failingAgents).toEqual(names.slice(0, 16));
    expect(stored!.cut).toContain('failingAgents: 16 of 100000 items');
  });
});

describe("runRecordPatch's content as values", () => {
  it('reads back from the compact record as the text it writes, values only where they give it', async () => {
    const content = [
      { city: 'Lisbon', date: '2026-12-01' },
      [1, 2.5, 'say "hi"\n', null, true, { nested: ['😀'] }],
      'plain text',
      42,
      { long: 'x'.repeat(3000) },
      [],
    ];
    const trace = agentTrace(
      content.map((value, i) => ({ name: `t${i}`, args: value, result: value })),
      { testCaseId: 'c' },
    );
    const plan: ScoringPlan = {
      suites: [
        await parseSuite(
          'name: s\nscorers: [tool_errors]\ntestCases: [{ id: c }]\n',
          's.yaml',
          '.',
        ),
      ],
      rules: [],
    };
    const run = await scoreTrace(trace.traceId, trace.spans, plan, {});
    const text = runRecordPatch(run, 0, true);
    const values = runRecordPatch(run, 0, true, 'values');
    expect(text.toolCalls.map(c => c.name)).toEqual(content.map((_, i) => `t${i}`));
    // The objects and arrays within the cut as they are; the rest as the text would have them.
    expect(values.toolCalls.map(c => typeof c.arguments)).toEqual([
      'object',
      'object',
      'string',
      'string',
      'string',
      'object',
    ]);
    expect(values.toolCalls[4]!.arguments).toBe(text.toolCalls[4]!.arguments);
    expect((text.toolCalls[4]!.arguments as string).endsWith('…')).toBe(true);
    const key = text.traceId;
    const line = compactRecordLine(values, key, { contentAsJson: false });
    expect(decodeCompactRecord(JSON.parse(line) as Record<string, unknown>, key).toolCalls).toEqual(
      text.toolCalls,
    );
  });

  it('cuts a long error without splitting a surrogate pair', async () => {
    // The pair straddles the bound: neither half is kept (a lone half is another text, U+FFFD).
    const error = `${'x'.repeat(MAX_CONTENT_CHARS - 1)}\u{1F600}${'tail'.repeat(10)}`;
    const { traceId, spans } = agentTrace([{ name: 'get_weather', error }], {
      testCaseId: 'invalid-arguments',
    });
    const run = await scoreTrace(traceId, spans, await planWith(['tool_errors']));
    const stored = runRecordPatch(run, 0, true).toolCalls[0]!.error!;
    expect(stored).toBe(`${'x'.repeat(MAX_CONTENT_CHARS - 1)}…`);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { assessToolCalls } from '../../src/normalize/assess-tool-calls.js';
import { findRepeatedCalls } from '../../src/normalize/find-repeated-calls.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { diagnoseTrace } from '../../src/normalize/inspect-trace.js';
import { normalizeTrace, type NormalizedTrace } from '../../src/normalize/normalize-trace.js';
import { toolArguments } from '../../src/score/deterministic/tool-arguments.js';
import { toolCallAccuracy } from '../../src/score/deterministic/tool-call-accuracy.js';
import { toolCorrectness } from '../../src/score/deterministic/tool-correctness.js';
import { toolErrors } from '../../src/score/deterministic/tool-errors.js';
import { toolLoops } from '../../src/score/deterministic/tool-loops.js';
import { toolTrajectory } from '../../src/score/deterministic/tool-trajectory.js';
import type { ScoreResult } from '../../src/score/score-result.js';
import type { Scorer } from '../../src/score/scorer.js';

const FIXTURES = new URL('../fixtures/otlp/', import.meta.url);
const EXPECTED = new URL('../fixtures/expected/', import.meta.url);
const SCORERS = [toolErrors, toolArguments, toolLoops] as Array<Scorer<unknown>>;

interface HealthGolden {
  calls: Array<{
    name: string;
    callId: string;
    outcome: 'ok' | 'error' | 'refused';
    offered: boolean | null;
    argumentProblems: string[] | null;
    errorIncludes?: string;
  }>;
  repeated: Array<{ name: string; count: number; callIds: string[] }>;
  scorers: Record<string, 'pass' | 'fail' | 'skipped'>;
}

async function tracesOf(name: string): Promise<Map<string, NormalizedTrace>> {
  const read = await readTraceFiles([new URL(`${name}.otlp.json`, FIXTURES).pathname]);
  expect(read.problems).toEqual([]);
  const out = new Map<string, NormalizedTrace>();
  for (const [traceId, spans] of groupSpansByTrace(read.spans)) {
    const trace = normalizeTrace(traceId, spans);
    out.set(trace.testCaseId ?? traceId, trace);
  }
  return out;
}

async function verdicts(trace: NormalizedTrace): Promise<Record<string, ScoreResult>> {
  const out: Record<string, ScoreResult> = {};
  for (const scorer of SCORERS)
    out[scorer.name] = await scorer.score({
      trace,
      testCase: undefined,
      options: scorer.parseOptions({}),
      aliases: new Map(),
    });
  return out;
}

const label = (r: ScoreResult): string => (r.status === 'scored' ? r.label : r.status);

/**
 * The tool-health captures (`captures/health-scenarios.ts`, through each framework) and the
 * refusal captures (`captures/refusal-scenarios.ts`, `scripts/capture-ai-sdk-v5-refusals.ts`; and
 * the hand-built `hand-*-refusals` for shapes no framework here writes): each call's outcome,
 * whether it was offered, its argument problems and the repeats, against golden files written from
 * the scenarios and what each framework records (`*.tool-health.json`).
 */
describe('tool health on the captures of the health and refusal scenarios', () => {
  const goldens = readdirSync(EXPECTED)
    .filter(f => f.endsWith('.tool-health.json'))
    .map(f => f.replace('.tool-health.json', ''));

  it('covers each framework the issue names', () => {
    for (const framework of [
      'captured-ai-sdk-',
      'captured-mastra-',
      'captured-mcp-',
      'captured-openai-agents-',
      'captured-opentelemetry-openai-',
    ])
      expect(
        goldens.some(g => g.startsWith(framework)),
        framework,
      ).toBe(true);
  });

  it.each(goldens)('%s', async name => {
    const expected = JSON.parse(
      readFileSync(new URL(`${name}.tool-health.json`, EXPECTED), 'utf8'),
    ) as Record<string, HealthGolden>;
    const traces = await tracesOf(name);
    expect([...traces.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [scenario, want] of Object.entries(expected)) {
      const trace = traces.get(scenario)!;
      const assessment = assessToolCalls(trace);
      expect(
        assessment.calls.map(a => ({
          name: a.call.name,
          callId: a.call.callId,
          outcome: a.call.outcome,
          offered: a.offered,
          argumentProblems: a.argumentProblems,
        })),
        scenario,
      ).toEqual(want.calls.map(({ errorIncludes: _, ...c }) => c));
      want.calls.forEach((c, i) => {
        const got = assessment.calls[i]!.call;
        if (c.errorIncludes) expect(got.error, `${scenario} call ${i}`).toContain(c.errorIncludes);
        else expect(got.error, `${scenario} call ${i}`).toBeUndefined();
        expect(got.status).toBe(c.outcome === 'ok' ? 'ok' : 'error');
      });
      expect(
        findRepeatedCalls(trace.toolSequence).map(r => ({
          name: r.name,
          count: r.count,
          callIds: r.callIds,
        })),
        scenario,
      ).toEqual(want.repeated);
      const results = await verdicts(trace);
      expect(
        Object.fromEntries(Object.entries(results).map(([k, r]) => [k, label(r)])),
        scenario,
      ).toEqual(want.scorers);
      // A call the framework refused is no untraced tool.
      expect(
        diagnoseTrace(trace, trace.spans).map(d => d.code),
        scenario,
      ).not.toContain('requested_not_executed');
    }
  });

  it("refuses only in each producer's own shape: its words from a tool that ran are an error", async () => {
    const outcomesOf = async (name: string): Promise<Record<string, string[]>> =>
      Object.fromEntries(
        [...(await tracesOf(name))].map(([id, t]) => [id, t.toolSequence.map(c => c.outcome)]),
      );
    expect(await outcomesOf('captured-vercel-ai-sdk-v5-refusals')).toEqual({
      'invalid-input': ['refused', 'ok'],
      'no-such-tool': ['refused'],
      'tool-says-invalid-input': ['error'],
      'empty-error-field': ['ok'],
      'retried-attempt': ['ok'],
    });
    for (const name of [
      'captured-openai-agents-0.20.0-refusals',
      'captured-mastra-1.71.0-refusals',
    ])
      expect((await outcomesOf(name))['tool-says-invalid-input'], name).toEqual(['error']);
    // Invalid arguments: refused by every framework that refuses them, the same rule for each.
    for (const name of [
      'captured-ai-sdk-6.0.325-health',
      'captured-ai-sdk-7.0.173-health',
      'captured-mastra-1.71.0-health',
      'captured-openai-agents-0.20.0-health',
      'captured-mcp-1.32.2-traceloop-0.27.0-health',
      'captured-mcp-1.32.2-ai-sdk-7.0.173-health',
      'captured-langgraph-1.7.3-openinference-4.1.1-health',
    ])
      expect((await outcomesOf(name))['invalid-arguments'], name).toEqual(['refused', 'ok']);
    // A plain agent loop's `{"error": …}` is the call's error: no framework refused it.
    expect(
      (await outcomesOf('captured-opentelemetry-openai-0.21.0-health'))['invalid-arguments'],
    ).toEqual(['error', 'ok']);
  });

  it('says what went wrong in sentences a person can act on', async () => {
    const traces = await tracesOf('captured-ai-sdk-7.0.173-health');
    const reasons = async (scenario: string): Promise<Record<string, string>> =>
      Object.fromEntries(
        Object.entries(await verdicts(traces.get(scenario)!)).map(([k, r]) => [
          k,
          r.status === 'failed' ? r.error : r.reason,
        ]),
      );
    expect((await reasons('invalid-arguments')).tool_arguments).toBe(
      "convert_currency was called with invalid arguments: /amount must be number; must have required property 'to'",
    );
    expect((await reasons('tool-not-offered')).tool_arguments).toBe(
      'delete_booking was called but never offered to the model (offered: get_weather, convert_currency)',
    );
    expect((await reasons('tool-throws')).tool_errors).toBe(
      '1 of 1 tool call(s) failed: get_weather: no weather station in Atlantis',
    );
    // A refused call fails the call, its error text summarized by its issues.
    expect((await reasons('invalid-arguments')).tool_errors).toBe(
      '1 of 2 tool call(s) failed (1 refused by the framework, not run): convert_currency refused: invalid input: /amount expected number, /to is required',
    );
    expect((await reasons('repeated-call')).tool_loops).toBe(
      'get_weather was called 3 times with the same arguments ({"city":"Paris"})',
    );
    expect((await reasons('healthy')).tool_arguments).toBe(
      "the arguments of all 1 checked call(s) match their tools' schemas",
    );
  });
});

/**
 * The approval captures (`captures/approval-scenarios.ts` through the AI SDK 6 and 7): the model
 * asked for `get_weather` (Paris) and `cancel_booking` (B-42) in one turn, the app approved the
 * first (it ran) and denied the second with "Cancellations need a human agent" (it never ran).
 * The denied call is refused, as a call the framework did not run is: a call the model made (the
 * scorers that compare the calls with an expectation count it), listed by `tool_errors` with the
 * refused calls, never with the failed ones or the ones that ran. (The AI SDK 7's capture also
 * holds `policy-denial`, a call its `toolApproval` policy denied: its golden file covers it.)
 */
describe('tool approval: a call the app denied', () => {
  const score = async <O>(
    scorer: Scorer<O>,
    trace: NormalizedTrace,
    options: Record<string, unknown>,
  ): Promise<ScoreResult> =>
    scorer.score({
      trace,
      testCase: undefined,
      options: scorer.parseOptions(options),
      aliases: new Map(),
    });

  it.each(['captured-ai-sdk-6.0.325-approvals', 'captured-ai-sdk-7.0.173-approvals'])(
    '%s',
    async name => {
      const trace = (await tracesOf(name)).get('approval')!;
      const [approved, denied] = trace.toolSequence;
      expect(approved!.source).toBe('executed');
      expect(denied!.source).toBe('requested');
      expect(denied!.durationMs).toBeUndefined();
      // The model chose both tools: a denial is no tool missing, no call made up.
      expect(trace.toolsUsed).toEqual(['get_weather', 'cancel_booking']);
      expect(
        label(
          await score(toolCorrectness, trace, { expectedTools: ['get_weather', 'cancel_booking'] }),
        ),
      ).toBe('pass');
      expect(
        label(
          await score(toolCallAccuracy, trace, {
            expectedToolOrder: ['get_weather', 'cancel_booking'],
            strictMode: true,
          }),
        ),
      ).toBe('pass');
      expect(
        label(
          await score(toolTrajectory, trace, {
            match: 'exact',
            expectedCalls: [
              { name: 'get_weather', args: { city: 'Paris' } },
              { name: 'cancel_booking', args: { bookingId: 'B-42' } },
            ],
          }),
        ),
      ).toBe('pass');
      const errors = await score(toolErrors, trace, {});
      expect(errors.status === 'scored' && errors.details).toMatchObject({
        judged: 2,
        executed: 1,
        failedCalls: [],
        refusedCalls: [
          {
            name: 'cancel_booking',
            callId: 'call_cancel',
            error: 'execution denied: Cancellations need a human agent',
          },
        ],
      });
      expect(errors.status === 'scored' && errors.reason).toBe(
        '1 of 2 tool call(s) failed (1 refused by the framework, not run): cancel_booking refused: execution denied: Cancellations need a human agent',
      );
    },
  );
});

/**
 * Every earlier capture (the golden pairs of `extract-tool-calls.golden.test.ts`) through the
 * three scorers. Reviewed by hand: none of their scenarios misuses a tool, so no finding but the
 * failed tools the fixtures were made with; the arguments are checked where the trace records the
 * schemas offered (listed here) and skipped, with the reason, where it does not.
 */
describe('tool health on every earlier capture: no false finding', () => {
  const pairs = readdirSync(EXPECTED)
    .filter(f => f.endsWith('.tool-calls.json'))
    .map(f => f.replace('.tool-calls.json', ''));

  /** The runs of these fixtures record a tool that failed (their scenarios say so). */
  const FAILED_TOOLS: Record<string, string[]> = {
    'captured-mastra-1.71.0-arize-1.3.8-tool-error': ['tool-error'],
    'captured-vercel-ai-sdk-v5': ['search-fails'],
    'hand-gen-ai-semconv': ['gen-ai-semconv'],
    'hand-strands': ['strands-latest'],
  };

  /** Message content off: the calls' results (and so their outcomes) are not recorded. */
  const NO_RESULTS = new Set(['captured-opentelemetry-openai-0.21.0-no-content']);

  /** Fixtures whose traces record the JSON Schemas of the tools offered: arguments are checked. */
  const SCHEMAS_RECORDED = new Set([
    'captured-ai-sdk-6.0.325',
    'captured-ai-sdk-7.0.173',
    'captured-ai-sdk-7.0.173-openinference-vercel-3.2.1',
    'captured-anthropic-1.14.0-openinference-0.2.8',
    'captured-genkit-1.42.0',
    'captured-google-adk-2.0.0',
    'captured-langchain-openinference-1.5.14',
    'captured-langgraph-1.7.3-openinference-4.1.1',
    'captured-langgraph-1.7.3-openinference-4.1.1-metadata',
    'captured-langsmith-0.12.0',
    'captured-mcp-1.32.2-openinference-0.2.33',
    'captured-mcp-1.32.2-traceloop-0.27.0',
    'captured-mcp-1.32.2-traceloop-0.27.0-shared-session',
    'captured-openinference-openai',
    'captured-openlit-1.15.0',
    'captured-traceloop-openai',
    'captured-traceloop-sdk-0.27.0',
    'captured-vercel-ai-sdk-v5',
  ]);

  it.each(pairs)('%s', async name => {
    const traces = await tracesOf(name);
    let checked = 0;
    for (const [testCaseId, trace] of traces) {
      const results = await verdicts(trace);
      const where = `${name} / ${testCaseId}`;
      const failedTool = FAILED_TOOLS[name]?.includes(testCaseId) ?? false;
      expect(label(results.tool_errors!), where).toBe(
        failedTool
          ? 'fail'
          : trace.toolSequence.length && !NO_RESULTS.has(name)
            ? 'pass'
            : 'skipped',
      );
      expect(label(results.tool_loops!), where).toBe(
        trace.toolSequence.length ? 'pass' : 'skipped',
      );
      expect(label(results.tool_arguments!), where).not.toBe('fail');
      if (label(results.tool_arguments!) === 'pass') checked++;
      else expect(results.tool_arguments!.status, where).toBe('skipped');
    }
    if (SCHEMAS_RECORDED.has(name)) expect(checked, name).toBeGreaterThan(0);
    else expect(checked, name).toBe(0);
  });
});

/**
 * The captures no golden above covers (sessions, multi-agent teams, a capture with no tool call
 * recorded): none of their scenarios has a tool fail or a call refused, so `tool_errors` never
 * fails on them.
 */
describe('tool health on every other capture: no tool_errors finding', () => {
  const covered = new Set(
    readdirSync(EXPECTED)
      .filter(f => f.endsWith('.json'))
      .map(f => f.replace(/\.(tool-calls|tool-health)\.json$/, '')),
  );
  const others = readdirSync(FIXTURES)
    .filter(f => f.endsWith('.otlp.json'))
    .map(f => f.replace('.otlp.json', ''))
    .filter(name => !covered.has(name));

  it('has some', () => expect(others.length).toBeGreaterThan(0));

  it.each(others)('%s', async name => {
    for (const [id, trace] of await tracesOf(name)) {
      const result = await toolErrors.score({
        trace,
        testCase: undefined,
        options: toolErrors.parseOptions({}),
        aliases: new Map(),
      });
      expect(label(result), `${name} / ${id}: ${JSON.stringify(result)}`).not.toBe('fail');
    }
  });
});

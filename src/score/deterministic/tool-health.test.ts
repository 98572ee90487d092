import { describe, expect, it } from 'vitest';
import { agentTrace, teamTrace } from '../../../test/helpers/trace-builder.js';
import { failingAgents } from '../failing-agents.js';
import type { NormalizedTrace } from '../../normalize/normalize-trace.js';
import type { ScoreResult } from '../score-result.js';
import type { Scorer } from '../scorer.js';
import { toolArguments } from './tool-arguments.js';
import { toolErrors } from './tool-errors.js';
import { toolLoops } from './tool-loops.js';

function run<O>(
  scorer: Scorer<O>,
  trace: NormalizedTrace,
  options: Record<string, unknown> = {},
): ScoreResult {
  return scorer.score({
    trace,
    testCase: undefined,
    options: scorer.parseOptions(options),
    aliases: new Map(),
  }) as ScoreResult;
}

const weather = {
  name: 'get_weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
};

describe('tool_errors', () => {
  it('is the share of calls that ran and succeeded; any failure fails by default', () => {
    const trace = agentTrace([
      { name: 'get_weather', args: { city: 'Paris' }, result: { t: 18 } },
      { name: 'get_weather', args: { city: 'Atlantis' }, error: 'no weather station' },
      {
        name: 'book',
        args: {},
        result: { isError: true, content: [{ type: 'text', text: 'sold out' }] },
      },
      { name: 'ok', args: {}, result: 'fine' },
    ]);
    const result = run(toolErrors, trace);
    expect(result).toMatchObject({
      status: 'scored',
      score: 0.5,
      label: 'fail',
      reason: '2 of 4 tool call(s) failed: get_weather: no weather station; book: sold out',
      details: {
        executed: 4,
        errorRate: 0.5,
        failedCalls: [
          { name: 'get_weather', callId: 'call_1', agent: null, error: 'no weather station' },
          { name: 'book', callId: 'call_2', agent: null, error: 'sold out' },
        ],
        refusedCalls: [],
      },
    });
    expect(run(toolErrors, trace, { maxErrorRate: 0.5 })).toMatchObject({ label: 'pass' });
    expect(run(toolErrors, trace, { errorText: false })).toMatchObject({
      reason: '2 of 4 tool call(s) failed: get_weather; book',
      details: { failedCalls: [{ error: null }, { error: null }] },
    });
  });

  it('counts a refused call as a failed one: a trace whose only call was refused fails', () => {
    const notFound = {
      isError: true,
      content: [{ type: 'text', text: 'MCP error -32602: Tool delete_booking not found' }],
    };
    const refused = agentTrace([
      { name: 'delete_booking', args: { id: 'B-42' }, result: notFound },
    ]);
    expect(refused.toolSequence[0]!.outcome).toBe('refused');
    expect(run(toolErrors, refused)).toEqual({
      status: 'scored',
      score: 0,
      label: 'fail',
      reason:
        '1 of 1 tool call(s) failed (1 refused by the framework, not run): delete_booking refused: MCP error -32602: Tool delete_booking not found',
      details: {
        judged: 1,
        executed: 0,
        errorRate: 1,
        maxErrorRate: 0,
        failedCalls: [],
        refusedCalls: [
          {
            name: 'delete_booking',
            callId: 'call_0',
            agent: null,
            error: 'MCP error -32602: Tool delete_booking not found',
          },
        ],
      },
    });
    // Refused, then the corrected call: one of two failed; a rate of 0.5 allowed passes.
    const corrected = agentTrace([
      { name: 'delete_booking', args: {}, result: notFound },
      { name: 'cancel_booking', args: { id: 'B-42' }, result: { ok: true } },
    ]);
    expect(run(toolErrors, corrected)).toMatchObject({ score: 0.5, label: 'fail' });
    expect(run(toolErrors, corrected, { maxErrorRate: 0.5 })).toMatchObject({ label: 'pass' });
    expect(run(toolErrors, refused, { errorText: false })).toMatchObject({
      reason:
        '1 of 1 tool call(s) failed (1 refused by the framework, not run): delete_booking refused',
    });
  });

  it('summarizes each error text: a schema issue list by its issues, never cut inside quotes', () => {
    const issues = JSON.stringify(
      [
        {
          expected: 'number',
          code: 'invalid_type',
          path: ['amount'],
          message: 'Invalid input: expected number, received string',
        },
      ],
      null,
      2,
    );
    const trace = agentTrace([
      {
        name: 'convert_currency',
        args: {},
        error: `Type validation failed: Error message: ${issues}`,
      },
      {
        name: 'search',
        args: {},
        error: `upstream: ${JSON.stringify({ detail: 'x y '.repeat(120) })}`,
      },
    ]);
    const result = run(toolErrors, trace);
    expect(result).toMatchObject({
      reason:
        '2 of 2 tool call(s) failed: convert_currency: invalid input: /amount expected number; search: upstream…',
    });
  });

  it('skips a trace where nothing ran and nothing was refused', () => {
    expect(run(toolErrors, agentTrace([]))).toEqual({
      status: 'skipped',
      reason: 'no tool calls in this trace',
    });
  });

  it('names the agent of a failed call in a team, and blames it', () => {
    const trace = teamTrace([
      { agent: 'triage', handoffTo: 'billing' },
      { agent: 'billing', calls: [{ name: 'issue_refund', args: { amount: 5 } }] },
    ]);
    // The team builder records no failures: the refund's call is failed here, as an extractor
    // reading a failed span would.
    const call = trace.toolSequence.find(c => c.name === 'issue_refund')!;
    call.outcome = 'error';
    call.error = 'ledger offline';
    const result = run(toolErrors, trace);
    expect(result).toMatchObject({
      label: 'fail',
      reason: '1 of 1 tool call(s) failed: issue_refund (by billing): ledger offline',
    });
    expect(failingAgents(result)).toEqual(['billing']);
    // A refused call blames its agent the same way.
    call.outcome = 'refused';
    const refused = run(toolErrors, trace);
    expect(refused).toMatchObject({
      reason:
        '1 of 1 tool call(s) failed (1 refused by the framework, not run): issue_refund (by billing) refused: ledger offline',
    });
    expect(failingAgents(refused)).toEqual(['billing']);
  });
});

describe('tool_arguments', () => {
  it('checks each call against the schema offered to the model, and names the problems', () => {
    const trace = agentTrace(
      [
        { name: 'get_weather', args: { city: 'Paris' }, result: {} },
        { name: 'get_weather', args: { town: 'Lyon' }, result: {} },
      ],
      { offered: [weather] },
    );
    expect(run(toolArguments, trace)).toMatchObject({
      status: 'scored',
      score: 0.5,
      label: 'fail',
      reason: "get_weather was called with invalid arguments: must have required property 'city'",
      details: {
        checked: 2,
        invalidCalls: [
          {
            name: 'get_weather',
            callId: 'call_1',
            agent: null,
            problems: ["/: must have required property 'city'"],
          },
        ],
        unknownCalls: [],
        unchecked: [],
      },
    });
  });

  it('counts a tool never offered as unknown, unless told not to', () => {
    const trace = agentTrace([{ name: 'delete_booking', args: { id: 1 }, result: {} }], {
      offered: [weather],
    });
    expect(run(toolArguments, trace)).toMatchObject({
      score: 0,
      label: 'fail',
      reason: 'delete_booking was called but never offered to the model (offered: get_weather)',
      details: { unknownCalls: [{ name: 'delete_booking', offered: ['get_weather'] }] },
    });
    expect(run(toolArguments, trace, { unknownTools: false })).toMatchObject({
      status: 'skipped',
    });
  });

  it('names the first ten offered tools for an unknown call, and counts the rest', () => {
    // A model offered 3,000 tools and 300 calls of one it was not: every call's reason and
    // details named all 3,000 (about 2 MB of reason here; 152 KB of trace with 3,000 calls made
    // 60 million characters, stored and exported as they were).
    const offered = Array.from({ length: 3_000 }, (_, i) => ({ name: `tool_${i}` }));
    const calls = Array.from({ length: 300 }, () => ({ name: 'delete_booking', args: {} }));
    const result = run(toolArguments, agentTrace(calls, { offered }));
    const names = offered.slice(0, 10).map(t => t.name);
    expect(result).toMatchObject({
      score: 0,
      details: { unknownCalls: Array(300).fill({ offered: names, offeredCount: 3_000 }) },
    });
    const reason = result.status === 'scored' ? result.reason : '';
    expect(reason).toContain(`(offered: ${names.join(', ')} and 2990 more)`);
    expect(reason.length).toBeLessThan(300 * 200);
  });

  it('compares names as spanscore does: a namespaced or differently cased call is the offered tool', () => {
    const trace = agentTrace(
      [{ name: 'functions.getWeather', args: { city: 'Oslo' }, result: {} }],
      {
        offered: [weather],
      },
    );
    expect(run(toolArguments, trace)).toMatchObject({ label: 'pass', score: 1 });
  });

  it('is skipped, never passed, when the trace records no schema to check against', () => {
    expect(run(toolArguments, agentTrace([{ name: 'get_weather', args: {}, result: {} }]))).toEqual(
      {
        status: 'skipped',
        reason:
          'the trace records no tools offered to the model (gen_ai.tool.definitions, ai.prompt.tools, llm.tools.*, …): there is nothing to check the calls against',
      },
    );
    expect(
      run(
        toolArguments,
        agentTrace([{ name: 'get_weather', args: {}, result: {} }], {
          offered: [{ name: 'get_weather' }],
        }),
      ),
    ).toEqual({
      status: 'skipped',
      reason:
        "the trace records the names of the tools offered but not their schemas: the calls' arguments cannot be checked",
    });
  });

  it('calls arguments that look like JSON but do not parse invalid', () => {
    const trace = agentTrace([{ name: 'get_weather', args: '{"city": "Par', result: {} }], {
      offered: [weather],
    });
    expect(run(toolArguments, trace)).toMatchObject({
      label: 'fail',
      reason: 'get_weather was called with invalid arguments: the arguments are not valid JSON',
    });
  });

  it('reads formats as annotations unless assertFormats (toolHealth.assertFormats) is on', () => {
    const book = {
      name: 'book',
      parameters: {
        type: 'object',
        properties: { day: { type: 'string', format: 'date' } },
        required: ['day'],
      },
    };
    const trace = () =>
      agentTrace([{ name: 'book', args: { day: 'tomorrow' }, result: {} }], { offered: [book] });
    expect(run(toolArguments, trace())).toMatchObject({ label: 'pass' });
    expect(run(toolArguments, trace(), { assertFormats: true })).toMatchObject({
      label: 'fail',
      reason: 'book was called with invalid arguments: /day must match format "date"',
    });
  });

  it('leaves a call whose schema cannot be compiled unchecked, with the reason', () => {
    const trace = agentTrace(
      [
        { name: 'get_weather', args: { city: 'Paris' }, result: {} },
        { name: 'remote', args: {}, result: {} },
      ],
      {
        offered: [weather, { name: 'remote', parameters: { $ref: 'https://example.com/s.json' } }],
      },
    );
    expect(run(toolArguments, trace)).toMatchObject({
      label: 'pass',
      details: {
        checked: 1,
        unchecked: [
          {
            name: 'remote',
            reason: 'its schema\'s $ref "https://example.com/s.json" is not local to the schema',
          },
        ],
      },
    });
  });
});

describe('tool_loops', () => {
  it('finds the same call with the same arguments made three times', () => {
    const same = { name: 'get_weather', args: { city: 'Paris', units: 'C' }, result: {} };
    const reordered = { name: 'get_weather', args: { units: 'C', city: 'Paris' }, result: {} };
    const trace = agentTrace([
      same,
      { name: 'get_weather', args: { city: 'Oslo' } },
      same,
      reordered,
    ]);
    expect(run(toolLoops, trace)).toMatchObject({
      score: 0,
      label: 'fail',
      reason:
        'get_weather was called 3 times with the same arguments ({"city":"Paris","units":"C"})',
      details: {
        repeatedCalls: [
          { name: 'get_weather', agent: null, count: 3, callIds: ['call_0', 'call_2', 'call_3'] },
        ],
      },
    });
    expect(run(toolLoops, trace, { minRepeats: 4 })).toMatchObject({ label: 'pass' });
    expect(run(toolLoops, trace, { showArguments: false })).toMatchObject({
      reason: 'get_weather was called 3 times with the same arguments',
    });
  });

  it('counts a tool called too often whatever the arguments, with maxCallsPerTool', () => {
    const trace = agentTrace(
      ['search', 'search', 'search', 'book'].map((name, i) => ({ name, args: { i } })),
    );
    expect(run(toolLoops, trace)).toMatchObject({ label: 'pass' });
    expect(run(toolLoops, trace, { maxCallsPerTool: 2 })).toMatchObject({
      label: 'fail',
      reason: 'search was called 3 times, more than 2',
    });
  });

  it('counts each agent of a team apart', () => {
    const calls = [1, 2].map(() => ({ name: 'lookup_order', args: { orderId: '42' } }));
    const trace = teamTrace([
      { agent: 'triage', calls, handoffTo: 'billing' },
      { agent: 'billing', calls: [calls[0]!] },
    ]);
    expect(run(toolLoops, trace)).toMatchObject({ label: 'pass' });
    expect(run(toolLoops, trace, { minRepeats: 2 })).toMatchObject({
      label: 'fail',
      reason:
        'lookup_order was called 2 times by triage with the same arguments ({"orderId":"42"})',
    });
  });

  it('never calls calls whose arguments are not recorded identical', () => {
    expect(run(toolLoops, agentTrace(['ping', 'ping', 'ping']))).toMatchObject({ label: 'pass' });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';
import { serveDefaults } from '../helpers/health-traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function get<T>(origin: string, path: string): Promise<T> {
  const response = await fetch(`${origin}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

interface ToolRow {
  service: string;
  tool: string;
  calls: number;
  errors: number;
  refused: number;
  checked: number;
  invalidArguments: number;
  unknown: number;
  repeated: number;
}

/**
 * `serve` with no configuration, as a newcomer runs it, fed a real capture over OTLP (the AI SDK
 * 7's five tool-health scenarios: a healthy call, invalid arguments then corrected, a tool never
 * offered, a tool that throws, the same call three times): tool health in the summary, per tool,
 * in the trace list and run records, in `/metrics` and in the evaluation spans, on both drivers.
 */
describe.each(['memory', 'bullmq'] as const)('tool health by default (%s driver)', driver => {
  it('scores every trace, and shows what went wrong with each tool', async () => {
    const prefix = testPrefix();
    if (driver === 'bullmq') closers.push(redisFor(prefix).cleanup);
    const served = await serveDefaults(
      driver === 'bullmq'
        ? { 'queue.driver': 'bullmq', 'queue.redisUrl': REDIS_URL, 'queue.prefix': prefix }
        : { 'queue.driver': 'memory' },
    );
    closers.push(served.close);
    expect(served.lines.join('\n')).toContain(
      'spanscore: tool health on: tool_errors, tool_arguments and tool_loops score every trace no suite or rule scores, as rule:tool-health',
    );
    const ids = await served.send();
    expect(ids).toHaveLength(5);

    const summary = await get<{
      total: { count: number; pass: number; fail: number; skipped: number };
      byScorer: Array<{ scorer: string; pass: number; fail: number; skipped: number }>;
      byTarget: Array<{ testCaseId: string }>;
    }>(served.origin, '/api/v1/summary?window=1h');
    // tool_errors fails the refused calls too: invalid arguments, a tool never offered.
    expect(summary.total).toMatchObject({ count: 15, pass: 9, fail: 6, skipped: 0 });
    expect(summary.byScorer.map(s => [s.scorer, s.pass, s.fail, s.skipped])).toEqual([
      ['tool_arguments', 3, 2, 0],
      ['tool_errors', 2, 3, 0],
      ['tool_loops', 4, 1, 0],
    ]);
    expect(new Set(summary.byTarget.map(t => t.testCaseId))).toEqual(new Set(['rule:tool-health']));

    const tools = await get<{ tools: ToolRow[] }>(served.origin, '/api/v1/tools?window=1h');
    const row = (tool: string) => {
      const { service, calls, errors, refused, checked, invalidArguments, unknown, repeated } =
        tools.tools.find(t => t.tool === tool)!;
      return { service, calls, errors, refused, checked, invalidArguments, unknown, repeated };
    };
    expect(tools.tools.map(t => t.tool)).toEqual([
      'get_weather',
      'convert_currency',
      'delete_booking',
    ]);
    expect(row('get_weather')).toEqual({
      service: 'ai-sdk-health-agent',
      calls: 5,
      errors: 1,
      refused: 0,
      checked: 5,
      invalidArguments: 0,
      unknown: 0,
      repeated: 3,
    });
    expect(row('convert_currency')).toMatchObject({
      calls: 2,
      errors: 0,
      refused: 1,
      checked: 2,
      invalidArguments: 1,
    });
    expect(row('delete_booking')).toMatchObject({ calls: 1, refused: 1, unknown: 1, checked: 0 });

    const refused = await get<{ traces: Array<{ traceId: string; state: string }> }>(
      served.origin,
      '/api/v1/traces?outcome=refused',
    );
    expect(refused.traces).toHaveLength(2);
    expect(refused.traces.every(t => t.state === 'scored')).toBe(true);

    // The run record of the invalid call: its outcome and what was wrong with its arguments.
    const records = await Promise.all(
      ids.map(id =>
        get<{
          toolCalls: Array<{ name: string; outcome: string; argumentProblems?: string[] | null }>;
        }>(served.origin, `/api/v1/traces/${id}`),
      ),
    );
    const invalid = records
      .flatMap(r => r.toolCalls)
      .find(c => c.outcome === 'refused' && c.name === 'convert_currency')!;
    expect(invalid.argumentProblems).toEqual([
      '/amount: must be number',
      "/: must have required property 'to'",
    ]);

    const metrics = await (await fetch(`${served.origin}/metrics`)).text();
    expect(metrics).toMatch(
      /spanscore_tool_calls_total\{service="ai-sdk-health-agent",tool="get_weather",outcome="error"\} 1/,
    );
    expect(metrics).toMatch(
      /spanscore_tool_argument_problems_total\{service="ai-sdk-health-agent",tool="convert_currency",problem="invalid"\} 1/,
    );
    expect(metrics).toMatch(
      /spanscore_tool_repeated_calls_total\{service="ai-sdk-health-agent",tool="get_weather"\} 3/,
    );

    // Evaluation spans in the scored traces, the reasons as they were found.
    const explanations = served.spans
      .filter(s => s.attributes['gen_ai.evaluation.score.label'] === 'fail')
      .map(s => s.attributes['gen_ai.evaluation.explanation']);
    expect(explanations).toEqual(
      expect.arrayContaining([
        "convert_currency was called with invalid arguments: /amount must be number; must have required property 'to'",
        'delete_booking was called but never offered to the model (offered: get_weather, convert_currency)',
        '1 of 1 tool call(s) failed: get_weather: no weather station in Atlantis',
        '1 of 2 tool call(s) failed (1 refused by the framework, not run): convert_currency refused: invalid input: /amount expected number, /to is required',
        'get_weather was called 3 times with the same arguments ({"city":"Paris"})',
      ]),
    );
    expect(served.spans).toHaveLength(15);
    expect(served.spans.every(s => s.attributes['spanscore.rule'] === 'rule:tool-health')).toBe(
      true,
    );
  }, 60_000);
});

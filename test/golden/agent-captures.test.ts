import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { normalizeTrace, type NormalizedTrace } from '../../src/normalize/normalize-trace.js';
import { scoreSuite } from '../../src/score/score-suite.js';
import { loadSuite, parseSuite } from '../../src/suite/load-suite.js';

/**
 * Every multi-agent capture (captures/agent-scenarios.ts: a triage agent hands a refund to a
 * billing agent that calls two tools; a question triage answers with its own tool), run by five
 * frameworks. The expectations are written from the scenarios: which agent makes each call, the
 * route, and the handoff, as each framework names it. config/suites/agent-team-captures.yaml
 * passes on every capture, and fails when an agent or the route is expected wrongly.
 */
const CAPTURES: Record<string, { handoffTool: string; route: string[] }> = {
  // The model asks for transfer_to_billing; OpenInference's bridge records `handoff to billing`.
  'captured-openai-agents-0.20.0-handoffs': {
    handoffTool: 'transfer_to_billing',
    route: ['triage', 'billing'],
  },
  // The supervisor takes control back when the worker is done.
  'captured-langgraph-supervisor-1.1.3-openinference-4.1.1': {
    handoffTool: 'transfer_to_billing',
    route: ['triage', 'billing', 'triage'],
  },
  // A sub-agent as a tool: billing's agent span runs inside triage's.
  'captured-mastra-1.71.0-agents': { handoffTool: 'agent-billing', route: ['triage', 'billing'] },
  'captured-voltagent-2.10.0-subagents': {
    handoffTool: 'delegate_task',
    route: ['triage', 'billing'],
  },
  'captured-google-adk-2.0.0-subagents': {
    handoffTool: 'transfer_to_agent',
    route: ['triage', 'billing'],
  },
};

const SUITE = new URL('../../config/suites/agent-team-captures.yaml', import.meta.url).pathname;
const fixture = (name: string): string =>
  new URL(`../fixtures/otlp/${name}.otlp.json`, import.meta.url).pathname;

async function traces(name: string): Promise<Map<string, NormalizedTrace>> {
  const read = await readTraceFiles([fixture(name)]);
  expect(read.problems).toEqual([]);
  const out = new Map<string, NormalizedTrace>();
  for (const [traceId, spans] of groupSpansByTrace(read.spans)) {
    const trace = normalizeTrace(traceId, spans);
    if (trace.testCaseId) out.set(trace.testCaseId, trace);
  }
  return out;
}

/** Wrong on purpose: the refund expected from triage, and the route reversed or too short. */
const WRONG = `
scorers: [{ name: tool_trajectory, match: exact, args: ignore }, agent_routing]
testCases:
  - id: handoff-to-billing
    expectedCalls: [{ name: lookup_order, agent: billing }, { name: issue_refund, agent: triage }]
    expectedAgents: [billing, triage]
  - id: stays-with-triage
    expectedCalls: [{ name: lookup_faq, agent: billing }]
    expectedAgents: [triage, billing]
`;

describe.each(Object.entries(CAPTURES))('multi-agent capture %s', (name, expected) => {
  it('gives each call its agent, each trace its route, and the handoff its agents', async () => {
    const byCase = await traces(name);
    const handoff = byCase.get('handoff-to-billing')!;
    expect(handoff.toolSequence.map(c => [c.name, c.agent])).toEqual([
      ['lookup_order', 'billing'],
      ['issue_refund', 'billing'],
    ]);
    expect(handoff.toolsUsed).toEqual(['lookup_order', 'issue_refund']);
    expect(handoff.agents.map(t => t.agent)).toEqual(expected.route);
    expect(handoff.handoffs.map(h => [h.from, h.to, h.rawName])).toEqual([
      ['triage', 'billing', expected.handoffTool],
    ]);
    // The turn billing took was given by that handoff.
    expect(handoff.agents[1]!.handoff?.to).toBe('billing');
    const stays = byCase.get('stays-with-triage')!;
    expect(stays.toolSequence.map(c => [c.name, c.agent])).toEqual([['lookup_faq', 'triage']]);
    expect(stays.agents.map(t => t.agent)).toEqual(['triage']);
    expect(stays.handoffs).toEqual([]);
  });

  it('passes agent-team-captures.yaml, and fails a wrong agent or route', async () => {
    const read = await readTraceFiles([fixture(name)]);
    const labels = async (suite: Awaited<ReturnType<typeof loadSuite>>) =>
      Object.fromEntries(
        (await scoreSuite(read.spans, suite)).scored.flatMap(t =>
          t.outcomes.map(o => [
            `${t.testCaseId} ${o.scorer}`,
            o.result.status === 'scored' ? o.result.label : o.result.status,
          ]),
        ),
      );
    expect(await labels(await loadSuite(SUITE))).toEqual({
      'handoff-to-billing tool_correctness': 'pass',
      'handoff-to-billing tool_trajectory': 'pass',
      'handoff-to-billing agent_routing': 'pass',
      'stays-with-triage tool_correctness': 'pass',
      'stays-with-triage tool_trajectory': 'pass',
      'stays-with-triage agent_routing': 'pass',
    });
    const wrong = await parseSuite(WRONG, 'agent-team-wrong.yaml', '.');
    expect(await labels(wrong)).toEqual({
      'handoff-to-billing tool_trajectory': 'fail',
      'handoff-to-billing agent_routing': 'fail',
      'stays-with-triage tool_trajectory': 'fail',
      'stays-with-triage agent_routing': 'fail',
    });
    const run = await scoreSuite(read.spans, wrong);
    const refund = run.scored
      .find(t => t.testCaseId === 'handoff-to-billing')!
      .outcomes.find(o => o.scorer === 'tool_trajectory')!.result;
    expect(refund.status === 'scored' && refund.reason).toContain(
      'issue_refund was called by billing, expected by triage',
    );
  });
});

describe('spanscore inspect on a multi-agent capture', () => {
  it('shows each call’s agent and the route, in the table and in JSON', async () => {
    const file = fixture('captured-openai-agents-0.20.0-handoffs');
    const json = await runCli(['inspect', file, '--format', 'json']);
    expect(json.code).toBe(0);
    const traces = json.stdout
      .trim()
      .split('\n')
      .map(
        l =>
          JSON.parse(l) as {
            testCaseId: string;
            agents: string[];
            handoffs: Array<{ from: string; to: string; rawName: string }>;
            toolCalls: Array<{ name: string; agent: string }>;
            diagnostics: unknown[];
          },
      );
    const handoff = traces.find(t => t.testCaseId === 'handoff-to-billing')!;
    expect(handoff.agents).toEqual(['triage', 'billing']);
    expect(handoff.handoffs.map(h => [h.from, h.to, h.rawName])).toEqual([
      ['triage', 'billing', 'transfer_to_billing'],
    ]);
    expect(handoff.toolCalls.map(c => [c.name, c.agent])).toEqual([
      ['lookup_order', 'billing'],
      ['issue_refund', 'billing'],
    ]);
    // The handoff is no tool: no "requested but not executed" call, no untraced-tool diagnostic.
    expect(handoff.diagnostics).toEqual([]);
    const table = await runCli(['inspect', file, '--format', 'table']);
    expect(table.stdout).toContain('agents         triage → billing (transfer_to_billing)');
    expect(table.stdout).toMatch(/^ +1 +lookup_order +billing +lookup_order +executed /m);
  });
});

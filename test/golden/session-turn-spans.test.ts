import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { sessionTurnSpans } from '../../src/normalize/session-turn-spans.js';
import { sessionTurnBytes } from '../../src/queue/session-turn-bytes.js';
import { scoreSession } from '../../src/score/score-session.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import type { TraceRun } from '../../src/score/trace-run.js';
import { parseSuite } from '../../src/suite/load-suite.js';

/**
 * A held session turn keeps only the spans session scoring reads (`sessionTurnSpans`): on the
 * captured conversations of four frameworks, every session's pass from the pruned spans equals
 * its pass from the whole traces (the results of every deterministic scorer, the calls with their
 * arguments, results, outcomes, agents and turns, the route, the conversation), and it holds fewer
 * bytes. The per-capture bytes are printed for docs/sessions.md.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/otlp');
const CAPTURES = [
  'captured-ai-sdk-6.0.325-sessions',
  'captured-langgraph-1.7.3-openinference-4.1.1-sessions',
  'captured-openai-agents-0.20.0-sessions',
  'captured-mastra-1.71.0-sessions',
];

// The captures' session suite with every deterministic scorer, so that each of them is compared.
const suiteText = async (): Promise<string> =>
  (await readFile(join(ROOT, 'test/fixtures/suites/session-captures.yaml'), 'utf8')).replace(
    'scorers: [tool_trajectory, tool_loops]',
    'scorers: [tool_trajectory, tool_loops, tool_errors, tool_arguments, tool_correctness, tool_call_accuracy, agent_routing]',
  );

/** What a session's pass gives, as comparable JSON (bigints as strings, times dropped). */
function passOf(run: TraceRun): unknown {
  return JSON.parse(
    JSON.stringify(
      {
        state: run.state,
        session: run.session,
        testCaseId: run.testCaseId,
        service: [run.serviceName, run.serviceVersion, run.deploymentEnvironment],
        results: run.results.map(r => ({
          testCaseId: r.testCaseId,
          outcomes: r.outcomes,
          calls: r.trace.toolSequence,
          agents: r.trace.agents,
          handoffs: r.trace.handoffs,
          agentName: r.trace.agentName,
          conversation: r.trace.conversation,
          turns: r.trace.session?.turns,
          root: r.trace.root?.spanId,
        })),
      },
      (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value),
    ),
  );
}

describe.each(CAPTURES)('held turns of %s', name => {
  it('score every session exactly as the whole traces do, from fewer bytes', async () => {
    const suite = await parseSuite(await suiteText(), 'session-captures.yaml', ROOT);
    // 7 scorers on every case: the comparison covers each of them.
    expect(suite.cases[0]!.scorers).toHaveLength(7);
    const plan: ScoringPlan = { suites: [suite], rules: [], sessionIdAttributes: [] };
    const traces = groupSpansByTrace(
      (await readTraceFiles([join(FIXTURES, `${name}.otlp.json`)])).spans,
    );
    const sessions = new Map<string, Array<{ traceId: string; spans: readonly SpanDigest[] }>>();
    for (const [traceId, spans] of traces) {
      const run = await scoreTrace(traceId, spans, plan);
      if (run.sessionId === undefined) continue;
      sessions.set(run.sessionId, [...(sessions.get(run.sessionId) ?? []), { traceId, spans }]);
    }
    expect(sessions.size).toBe(4);
    let whole = 0;
    let held = 0;
    let turns = 0;
    for (const [sessionId, full] of sessions) {
      const pruned = full.map(t => ({ traceId: t.traceId, spans: sessionTurnSpans(t.spans) }));
      const before = await scoreSession(sessionId, full, plan);
      const after = await scoreSession(sessionId, pruned, plan);
      expect(before.state).toBe('scored');
      expect(passOf(after)).toEqual(passOf(before));
      for (const [i, t] of full.entries()) {
        whole += sessionTurnBytes(t.spans);
        held += sessionTurnBytes(pruned[i]!.spans);
        turns++;
      }
    }
    expect(held).toBeLessThanOrEqual(whole);
    console.log(
      `${name}: ${turns} turns, bytes held per turn ${Math.round(whole / turns)} whole, ${Math.round(held / turns)} pruned (${Math.round((100 * held) / whole)}%)`,
    );
  });
});

import type { SessionPass } from '../normalize/session-pass.js';
import type { IndexedTrace } from '../normalize/indexed-trace.js';
import { normalizeIndexedTrace } from '../normalize/normalize-trace.js';
import { sessionTrace } from '../normalize/session-trace.js';
import { phaseScorers } from './phase-scorers.js';
import { runScorers } from './run-scorers.js';
import { TOOL_HEALTH_TARGET, type ScoringPlan } from './scoring-plan.js';
import type { ScoringPhase, TraceResult } from './trace-run.js';

/** What {@link conversationHealth} needs of a session's pass. */
export interface ConversationHealthOptions {
  phase: ScoringPhase;
  /** Which part of the session is scored, and the bound it was cut at, when one was. */
  pass: SessionPass | undefined;
  /** Scorers the session's test cases already ran on it: not run twice. */
  ran: ReadonlySet<string>;
  propagate?: ((error: unknown) => boolean | Error) | undefined;
  now: () => bigint;
}

/**
 * Tool health across a production conversation (`toolHealth.sessions`): when the plan asks for it
 * and the session id is in its sample, its scorers (`tool_loops`, `tool_errors`) but those a
 * session test case already ran on the session are run on the session's trace (`sessionTrace`,
 * every turn normalized without aliases, as tool health reads a trace), so a lookup repeated over
 * three turns or a failed call in any turn is found. The result is the `rule:tool-health`
 * target's. `undefined` when off, sampled out or nothing is left to run; `{ reason }` when the
 * conversation records no tool call (tool health judges tool calls). Pure apart from the scorers.
 */
export async function conversationHealth(
  sessionId: string,
  turns: ReadonlyArray<{ traceId: string; indexed: IndexedTrace }>,
  plan: ScoringPlan,
  options: ConversationHealthOptions,
): Promise<TraceResult | { reason: string } | undefined> {
  const health = plan.toolHealth?.sessions;
  if (!health?.sampled(sessionId)) return undefined;
  const scorers = health.scorers.filter(s => !options.ran.has(s.scorer.name));
  const { selected, deferred } = phaseScorers(scorers, options.phase);
  if (selected.length === 0 && deferred.length === 0) return undefined;
  const trace = sessionTrace(
    sessionId,
    turns.map(t => normalizeIndexedTrace(t.traceId, t.indexed, { testCaseId: undefined })),
    options.pass,
  );
  if (trace.toolSequence.length === 0)
    return {
      reason: `no tool calls recorded in the session (${turns.length} trace(s)): tool health scores conversations that call tools`,
    };
  const startUnixNano = options.now();
  const outcomes = await runScorers(trace, undefined, selected, NO_ALIASES, options.propagate);
  return {
    phase: options.phase,
    trace,
    kind: 'rule',
    suite: TOOL_HEALTH_TARGET,
    testCaseId: TOOL_HEALTH_TARGET,
    testCase: undefined,
    outcomes,
    deferred,
    startUnixNano,
    endUnixNano: options.now(),
  };
}

const NO_ALIASES: ReadonlyMap<string, string> = new Map();

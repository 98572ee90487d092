import type { SpanDigest } from '../ingest/span-digest.js';
import { indexTrace } from '../normalize/indexed-trace.js';
import { normalizeIndexedTrace } from '../normalize/normalize-trace.js';
import { sessionTrace } from '../normalize/session-trace.js';
import { conversationHealth } from './conversation-health.js';
import type { SessionPass } from '../normalize/session-pass.js';
import { phaseScorers } from './phase-scorers.js';
import { runScorers } from './run-scorers.js';
import { readTraceIds } from './read-trace-ids.js';
import { unixNanoNow } from './unix-nano-now.js';
import type { ScoreTraceOptions } from './score-trace.js';
import type { ScoringPlan, Suite, SuiteCase } from './scoring-plan.js';
import type { TraceResult, TraceRun } from './trace-run.js';

/** One trace of a session, as the session is scored from. */
export interface SessionTraceSpans {
  traceId: string;
  spans: readonly SpanDigest[];
}

/** Options of {@link scoreSession}: those of a trace's pass, and which pass of the session. */
export interface ScoreSessionOptions extends ScoreTraceOptions {
  /**
   * Which part of the session this is, and the bound it was cut at, if one was (the results, the
   * run record and its key say so); part 1, uncut, by default.
   */
  pass?: SessionPass | undefined;
}

/**
 * Scores a session (the traces of one conversation, one per turn) as one: every suite's session
 * test case (`session: true`) that a test case id on any of its traces names is run on the
 * session's trace (`sessionTrace`: the turns in start order, their calls joined and marked with
 * their turn), with the phase's scorers, and the run goes to every sink in order, like a trace's
 * (`scoreTrace`). Its `traceId` is the last turn's and `session` lists the turns. A production
 * conversation (`toolHealth.sessions`, in its sample) also gets tool health across its turns
 * (`conversationHealth`), in the same run as any session test case's results. A session neither
 * names is `not_scored`, with why. Pure apart from the sinks and scorers.
 */
export async function scoreSession(
  sessionId: string,
  traces: readonly SessionTraceSpans[],
  plan: ScoringPlan,
  options: ScoreSessionOptions = {},
): Promise<TraceRun> {
  const now = options.now ?? unixNanoNow;
  const phase = options.phase ?? 'all';
  const pass = options.pass ?? { part: 1 };
  const turns = traces.map(t => {
    const indexed = indexTrace(t.spans);
    return { traceId: t.traceId, spans: indexed.spans, root: indexed.root, indexed };
  });
  const results: TraceResult[] = [];
  let testCaseId: string | undefined;
  let testCaseIdAttribute: string | undefined;
  let ordered: string[] = turns.map(t => t.traceId);
  // Scorers a session test case ran: tool health across the conversation does not run them again.
  const ran = new Set<string>();
  // Each turn's test case id as each suite reads it, all suites' in one walk over the turn's spans
  // (`readTraceIds`): a walk per suite read a wide span's keys once a suite.
  const idsByTurn = turns.map(t => readTraceIds(t, plan).bySuite);
  for (const [s, suite] of plan.suites.entries()) {
    // Each turn's test case id as this suite reads it: to find its session case, and to
    // normalize the turn with.
    const ids = idsByTurn.map(bySuite => bySuite[s]);
    const target = sessionCaseOf(suite, ids) ?? inheritedCase(suite, pass.testCaseId);
    if (!target) continue;
    testCaseId ??= target.suiteCase.testCase.id;
    testCaseIdAttribute ??= target.attribute;
    for (const s of target.suiteCase.scorers) ran.add(s.scorer.name);
    const { selected, deferred } = phaseScorers(target.suiteCase.scorers, phase);
    if (selected.length === 0 && deferred.length === 0) continue;
    const trace = sessionTrace(
      sessionId,
      turns.map((t, i) =>
        normalizeIndexedTrace(t.traceId, t.indexed, {
          aliases: suite.aliases,
          testCaseId: ids[i]?.id,
        }),
      ),
      pass,
    );
    ordered = trace.session!.turns.map(t => t.traceId);
    const startUnixNano = now();
    const outcomes = await runScorers(
      trace,
      target.suiteCase.testCase,
      selected,
      suite.aliases,
      options.propagate,
    );
    results.push({
      phase,
      trace,
      kind: 'test_case',
      suite: suite.name,
      testCaseId: target.suiteCase.testCase.id,
      testCase: target.suiteCase.testCase,
      outcomes,
      deferred,
      startUnixNano,
      endUnixNano: now(),
    });
  }
  // A production conversation (`toolHealth.sessions`): tool health across its turns, in the
  // same pass as its session test cases' results, if it has any.
  const health = await conversationHealth(sessionId, turns, plan, {
    phase,
    pass: options.pass,
    ran,
    propagate: options.propagate,
    now,
  });
  if (health && 'trace' in health) {
    results.push(health);
    ordered = health.trace.session!.turns.map(t => t.traceId);
  }
  const scored = testCaseId !== undefined || results.length > 0;
  const last = results[0]?.trace ?? undefined;
  const resourceOf = last?.root ?? turns.at(-1)?.root ?? turns.at(-1)?.spans[0];
  const run: TraceRun = {
    traceId: ordered.at(-1) ?? '',
    phase,
    state: scored ? 'scored' : 'not_scored',
    reason: scored
      ? undefined
      : health && 'reason' in health
        ? health.reason
        : `no session test case (session: true) is named by a test case id on the session's traces (${turns.length} trace(s))`,
    reasonCode: scored
      ? undefined
      : health && 'reason' in health
        ? 'no_tool_calls'
        : 'unknown_test_case',
    testCaseId,
    testCaseIdAttribute,
    serviceName: resourceOf?.serviceName ?? '',
    serviceVersion: resourceOf?.serviceVersion ?? '',
    deploymentEnvironment: resourceOf?.deploymentEnvironment ?? '',
    diagnostics: [...(options.notes ?? [])],
    results,
    sessionId,
    session: {
      id: sessionId,
      part: pass.part,
      traceIds: ordered,
      ...(pass.cut && { cut: pass.cut }),
      ...(pass.continues && { continues: pass.continues }),
    },
  };
  for (const sink of options.sinks ?? []) await sink.write(run);
  return run;
}

/**
 * A continuation's session test case when none of its turns names one: the one an earlier part's
 * tagged turn named (`SessionPass.testCaseId`), if it is a session case of `suite`.
 */
function inheritedCase(
  suite: Suite,
  testCaseId: string | undefined,
): { suiteCase: SuiteCase; attribute: string | undefined } | undefined {
  const suiteCase = testCaseId === undefined ? undefined : suite.byId.get(testCaseId);
  return suiteCase?.testCase.session ? { suiteCase, attribute: undefined } : undefined;
}

/**
 * The session test case of `suite` the session's traces name: the first turn (in the order
 * given) whose test case id (`ids`, read with the suite's attributes) is a session case of it.
 */
function sessionCaseOf(
  suite: Suite,
  ids: ReadonlyArray<{ id: string; attribute: string } | undefined>,
): { suiteCase: SuiteCase; attribute: string } | undefined {
  for (const found of ids) {
    const suiteCase = found && suite.byId.get(found.id);
    if (found && suiteCase?.testCase.session) return { suiteCase, attribute: found.attribute };
  }
  return undefined;
}

import type { SpanDigest } from '../ingest/span-digest.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ResultSink } from './result-sink.js';
import type { ScorerOutcome } from './run-scorers.js';
import { scoreSession } from './score-session.js';
import { scoreTrace } from './score-trace.js';
import type { ScoringPlan, Suite } from './scoring-plan.js';
import type { TraceRun } from './trace-run.js';

/** One scored trace of a suite run. */
export interface ScoredTrace {
  trace: NormalizedTrace;
  testCaseId: string;
  outcomes: ScorerOutcome[];
}

/** The outcome of scoring a set of spans against a suite. */
export interface SuiteRun {
  scored: ScoredTrace[];
  /** Test cases no trace belonged to. */
  missing: string[];
  /** Traces without a test case id of this suite, by trace id. */
  unmatched: string[];
}

/** Options for {@link scoreSuite}. */
export interface ScoreSuiteOptions {
  /** Called after each trace, e.g. to drive a progress bar. */
  onTrace?: (done: number, total: number) => void;
  /** More sinks for every trace run (the offline report is built from the returned run). */
  sinks?: readonly ResultSink[];
}

/**
 * Scores spans against a suite, in-process, with the same per-trace loop as the live service
 * ({@link scoreTrace}): spans are grouped by trace, and each trace is matched to its test case and
 * scored. Several traces of one test case are each scored. Traces are then grouped by session id,
 * and each session a session test case (`session: true`) names is scored as one
 * ({@link scoreSession}), after the traces. Traces of no test case (and turns of a session case
 * that carry no session id) are listed as unmatched; test cases with no trace as missing.
 */
export async function scoreSuite(
  spans: Iterable<SpanDigest>,
  suite: Suite,
  options: ScoreSuiteOptions = {},
): Promise<SuiteRun> {
  const traces = groupSpansByTrace(spans);
  const run: SuiteRun = { scored: [], missing: [], unmatched: [] };
  const plan: ScoringPlan = {
    suites: [suite],
    rules: [],
    sessionIdAttributes: suite.sessionIdAttributes,
  };
  const seenCases = new Set<string>();
  const add = (traceRun: TraceRun): void => {
    for (const { trace, testCaseId, outcomes } of traceRun.results) {
      seenCases.add(testCaseId);
      run.scored.push({ trace, testCaseId, outcomes });
    }
  };
  // The traces of each session, and the sessions a session test case names.
  const sessions = new Map<string, string[]>();
  const tagged = new Set<string>();
  let done = 0;
  for (const [traceId, traceSpans] of traces) {
    const traceRun = await scoreTrace(traceId, traceSpans, plan, {
      ...(options.sinks && { sinks: options.sinks }),
    });
    const sessionId = traceRun.sessionId;
    if (sessionId !== undefined) {
      sessions.set(sessionId, [...(sessions.get(sessionId) ?? []), traceId]);
      if (traceRun.reasonCode === 'session_test_case') tagged.add(sessionId);
    }
    if (
      traceRun.state === 'not_scored' &&
      !(sessionId !== undefined && traceRun.reasonCode === 'session_test_case')
    )
      run.unmatched.push(traceId);
    add(traceRun);
    options.onTrace?.(++done, traces.size);
  }
  for (const sessionId of tagged) {
    const turns = sessions
      .get(sessionId)!
      .map(traceId => ({ traceId, spans: traces.get(traceId)! }));
    add(
      await scoreSession(sessionId, turns, plan, {
        ...(options.sinks && { sinks: options.sinks }),
      }),
    );
  }
  for (const c of suite.cases) if (!seenCases.has(c.testCase.id)) run.missing.push(c.testCase.id);
  return run;
}

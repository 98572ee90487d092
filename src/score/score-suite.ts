import type { SpanDigest } from '../ingest/span-digest.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { matchTestCase } from './match-test-case.js';
import type { Suite } from '../suite/load-suite.js';
import { runScorers, type ScorerOutcome } from './run-scorers.js';

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
}

/**
 * Scores spans against a suite, in-process: spans are grouped by trace, each trace normalized
 * with the suite's aliases and matched to its test case by the id attributes, and the case's
 * scorers run. Several traces of one test case are each scored. Traces of no test case are listed
 * as unmatched; test cases with no trace as missing.
 */
export async function scoreSuite(
  spans: Iterable<SpanDigest>,
  suite: Suite,
  options: ScoreSuiteOptions = {},
): Promise<SuiteRun> {
  const traces = groupSpansByTrace(spans);
  const run: SuiteRun = { scored: [], missing: [], unmatched: [] };
  const seenCases = new Set<string>();
  let done = 0;
  for (const [traceId, traceSpans] of traces) {
    const { trace, suiteCase } = matchTestCase(traceId, traceSpans, suite);
    if (!suiteCase) run.unmatched.push(traceId);
    else {
      seenCases.add(suiteCase.testCase.id);
      const outcomes = await runScorers(
        trace,
        suiteCase.testCase,
        suiteCase.scorers,
        suite.aliases,
      );
      run.scored.push({ trace, testCaseId: suiteCase.testCase.id, outcomes });
    }
    options.onTrace?.(++done, traces.size);
  }
  for (const c of suite.cases) if (!seenCases.has(c.testCase.id)) run.missing.push(c.testCase.id);
  return run;
}

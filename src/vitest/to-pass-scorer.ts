import type { MatcherState } from 'vitest';
import { BUILTIN_SCORERS } from '../score/builtin-scorers.js';
import { expectedToolsOf } from '../score/expected-tools.js';
import type { ScoreResult } from '../score/score-result.js';
import type { Scorer } from '../score/scorer.js';
import type { TestCase } from '../score/test-case.js';
import { aliasesOf, asTrace, reasonOf, report, type MatcherOutcome } from './matcher-report.js';
import { asserting, runsOf, summarizeRuns, type RepeatOptions } from './repeat-runs.js';

/**
 * `await expect(run).toPassScorer(scorer, testCase?, options?)`: the scorer (a built-in's name, or
 * any `Scorer`: built-in, `defineScorer`, LLM) labels the trace `pass` for `testCase`, given the
 * whole normalized trace as `spanscore score` gives it. Skipped and failed results do not pass.
 */
async function oneRun(
  this: MatcherState,
  received: unknown,
  scorer: Scorer<unknown> | string,
  testCase: Omit<Partial<TestCase>, 'scorers'> = {},
  scorerOptions: Record<string, unknown> = {},
): Promise<MatcherOutcome> {
  const trace = asTrace(received, 'toPassScorer');
  const resolved = typeof scorer === 'string' ? BUILTIN_SCORERS.get(scorer) : scorer;
  if (!resolved || typeof resolved.score !== 'function')
    throw new TypeError(
      typeof scorer === 'string'
        ? `toPassScorer: no built-in scorer named ${JSON.stringify(scorer)} (built-ins: ${[...BUILTIN_SCORERS.keys()].join(', ')})`
        : 'toPassScorer: expected a scorer (an object with name and score) or a built-in scorer name',
    );
  let result: ScoreResult;
  try {
    result = await resolved.score({
      trace,
      testCase: { id: trace.testCaseId ?? 'vitest', ...testCase, scorers: [] },
      options: resolved.parseOptions(scorerOptions),
      aliases: aliasesOf(trace, undefined),
    });
  } catch (error) {
    result = {
      status: 'failed',
      error: error instanceof Error ? error.message : String(error),
      errorType: error instanceof Error ? error.name : 'Error',
    };
  }
  const pass = result.status === 'scored' && result.label === 'pass';
  const verdict =
    result.status === 'scored'
      ? `${result.label} (score ${result.score})`
      : result.status === 'skipped'
        ? 'skipped'
        : 'failed';
  return {
    pass,
    message: () =>
      report(this, 'toPassScorer', {
        claim: `Expected ${resolved.name} ${this.isNot ? 'not ' : ''}to pass; it gave ${verdict}`,
        expected: expectedToolsOf(testCase),
        actualLabel: 'Calls',
        actual: trace.toolSequence.map(c => c.name),
        detail: reasonOf(result),
        trace,
      }),
  };
}

/** The matcher over one run or several (`repeat.minPassRate`); scorers may be async, so it is. */
export async function toPassScorer(
  this: MatcherState,
  received: unknown,
  scorer: Scorer<unknown> | string,
  testCase: Omit<Partial<TestCase>, 'scorers'> = {},
  scorerOptions: Record<string, unknown> = {},
  repeat: RepeatOptions = {},
): Promise<MatcherOutcome> {
  const runs = runsOf(received, repeat.minPassRate, 'toPassScorer');
  if (!runs) return oneRun.call(this, received, scorer, testCase, scorerOptions);
  const outcomes = [];
  for (const run of runs)
    outcomes.push(await oneRun.call(asserting(this), run, scorer, testCase, scorerOptions));
  return summarizeRuns(this, 'toPassScorer', runs, outcomes, repeat.minPassRate ?? 1);
}

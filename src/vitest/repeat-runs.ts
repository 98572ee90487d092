import type { MatcherState } from 'vitest';
import { wilsonInterval } from '../decide/trial-statistics.js';
import { describe, sequence, type MatcherOutcome, type MatchedTrace } from './matcher-report.js';

/** Options for a matcher given several runs (`captureTrace.repeat`). */
export interface RepeatOptions {
  /**
   * The share of runs that must pass, 0–1. @defaultValue 1 (every run)
   */
  minPassRate?: number;
}

/**
 * Matchers over several runs (`captureTrace.repeat`): each run judged on its own, then the share
 * that passed against `minPassRate`.
 */

/** `state` as it is for a positive assertion: each run is judged on its own, then counted. */
export function asserting(state: MatcherState): MatcherState {
  return Object.create(state, { isNot: { value: false } }) as MatcherState;
}

/**
 * The runs when `received` is an array (validating `minPassRate`), else `undefined`; a
 * `minPassRate` given with a single run is a mistake worth an error.
 */
export function runsOf(
  received: unknown,
  minPassRate: number | undefined,
  matcher: string,
): unknown[] | undefined {
  if (
    minPassRate !== undefined &&
    (typeof minPassRate !== 'number' || !(minPassRate >= 0 && minPassRate <= 1))
  )
    throw new TypeError(
      `${matcher}: minPassRate must be a number from 0 to 1, got ${String(minPassRate)}`,
    );
  if (!Array.isArray(received)) {
    if (minPassRate !== undefined)
      throw new TypeError(
        `${matcher}: minPassRate needs several runs (an array, e.g. from captureTrace.repeat), got ${describe(received)}`,
      );
    return undefined;
  }
  if (received.length === 0)
    throw new TypeError(`${matcher}: expected at least one run, got an empty array`);
  return received as unknown[];
}

/**
 * A matcher over one run made a matcher over one run or several: given an array, each run is
 * judged by `one` and the matcher passes when at least the `minPassRate` (read from the
 * arguments by `minPassRateOf`) of them pass.
 */
export function forRuns<A extends unknown[]>(
  matcher: string,
  one: (this: MatcherState, received: unknown, ...args: A) => MatcherOutcome,
  minPassRateOf: (...args: A) => number | undefined,
): (this: MatcherState, received: unknown, ...args: A) => MatcherOutcome {
  return function (this: MatcherState, received: unknown, ...args: A): MatcherOutcome {
    return overRuns(this, matcher, received, minPassRateOf(...args), (state, run) =>
      one.call(state, run, ...args),
    );
  };
}

export function overRuns(
  state: MatcherState,
  matcher: string,
  received: unknown,
  minPassRate: number | undefined,
  one: (state: MatcherState, run: unknown) => MatcherOutcome,
): MatcherOutcome {
  const runs = runsOf(received, minPassRate, matcher);
  if (!runs) return one(state, received);
  const outcomes = runs.map(run => one(asserting(state), run));
  return summarizeRuns(state, matcher, runs, outcomes, minPassRate ?? 1);
}

export function summarizeRuns(
  state: MatcherState,
  matcher: string,
  runs: readonly unknown[],
  outcomes: readonly MatcherOutcome[],
  minPassRate: number,
): MatcherOutcome {
  const passes = outcomes.filter(o => o.pass).length;
  const rate = passes / runs.length;
  const pass = rate >= minPassRate;
  const percent = (n: number): string => `${Math.round(n * 100)}%`;
  return {
    pass,
    message: () => {
      const [low, high] = wilsonInterval(passes, runs.length);
      const need = minPassRate === 1 ? 'every one' : `at least ${percent(minPassRate)}`;
      const lines = [
        state.utils.matcherHint(`.${matcher}`, 'runs', 'expected', { isNot: state.isNot }),
        '',
        `Expected ${state.isNot ? 'fewer than ' : ''}${need} of the ${runs.length} runs to pass; ${passes} passed (${percent(rate)}, 95% interval ${percent(low)}–${percent(high)}).`,
        '',
        ...runs.map((run, i) => {
          const calls = (run as MatchedTrace).toolSequence;
          return `  run ${String(i + 1).padStart(String(runs.length).length)} ${outcomes[i]!.pass ? '✓' : '✗'}  ${sequence(calls)}`;
        }),
      ];
      return lines.join('\n');
    },
  };
}

import type { Scorer } from '../score/scorer.js';
import type { TestCase } from '../score/test-case.js';
import type { RepeatOptions } from './repeat-runs.js';
import { toHaveCalledTool } from './to-have-called-tool.js';
import {
  toHaveCalledToolsInOrder,
  type ExpectedToolCall,
  type ToolOrderOptions,
} from './to-have-called-tools-in-order.js';
import { toHaveNoToolErrors, type NoToolErrorsOptions } from './to-have-no-tool-errors.js';
import {
  toHaveRepeatedToolCalls,
  type RepeatedToolCallsOptions,
} from './to-have-repeated-tool-calls.js';
import { toHaveRoutedTo, type RoutedToOptions } from './to-have-routed-to.js';
import { toHaveUsedTools, type UsedToolsOptions } from './to-have-used-tools.js';
import { toHaveValidToolArguments } from './to-have-valid-tool-arguments.js';
import { toMatchInlineToolSnapshot, toMatchToolSnapshot } from './to-match-tool-snapshot.js';
import { toPassScorer } from './to-pass-scorer.js';
import type { ToolSnapshotOptions } from './tool-snapshot.js';
import type { MatcherState } from 'vitest';
import type { MatcherOutcome } from './matcher-report.js';

export type { CalledByAgent } from './to-have-called-tool.js';
export type {
  ExpectedToolCall,
  NoToolErrorsOptions,
  RepeatOptions,
  RepeatedToolCallsOptions,
  RoutedToOptions,
  ToolOrderOptions,
  ToolSnapshotOptions,
  UsedToolsOptions,
};

/**
 * The matchers `spanscore/vitest` adds to `expect`. Every one takes a trace from `captureTrace()`
 * (or any `NormalizedTrace`), or an array of them from `captureTrace.repeat()` with
 * `{ minPassRate }` (default: every run must pass), compares tool names after spanscore's normalization and the
 * trace's aliases (`getWeather` ≡ `get_weather` ≡ `functions.get_weather`), and on failure shows
 * the expected and the actual tool sequence, with a diff.
 */
export interface ToolMatchers<R = unknown> {
  /** The tools used, as a set (order and repeats ignored), are exactly `names` (as `tool_correctness`). */
  toHaveUsedTools(names: readonly string[], options?: UsedToolsOptions & RepeatOptions): R;
  /**
   * Some call of `name` had arguments containing `args` (a deep subset); any arguments if absent.
   * `{ agent }` or `{ agent, args }` as the second argument also asks that `agent` made the call.
   */
  toHaveCalledTool(name: string, args?: unknown, options?: RepeatOptions): R;
  /**
   * The agents took control in this order (the trace's route, as the `agent_routing` scorer reads
   * it): `exact` by default; an agent the run returns to need not be listed again.
   */
  toHaveRoutedTo(agents: readonly string[], options?: RoutedToOptions & RepeatOptions): R;
  /** The calls match `calls` in order, `exact` (default) or as a `subsequence` (as `tool_trajectory`). */
  toHaveCalledToolsInOrder(
    calls: readonly ExpectedToolCall[],
    options?: ToolOrderOptions & RepeatOptions,
  ): R;
  /**
   * The scorer (a built-in's name, or any `Scorer`: built-in, `defineScorer`, LLM) labels the
   * trace `pass` for `testCase`. Skipped and failed results do not pass. Async: `await` it.
   */
  toPassScorer(
    scorer: Scorer<unknown> | string,
    testCase?: Omit<Partial<TestCase>, 'scorers'>,
    scorerOptions?: Record<string, unknown>,
    repeat?: RepeatOptions,
  ): Promise<R>;
  /**
   * No tool call failed (the `tool_errors` scorer) and, unless `{ refused: false }`, none was
   * refused by the framework (invalid input, no such tool).
   */
  toHaveNoToolErrors(options?: NoToolErrorsOptions & RepeatOptions): R;
  /**
   * Every call's arguments match the JSON Schema of its tool as offered to the model, and every
   * tool called was offered (`tool_arguments`). Throws when the trace records no schema.
   */
  toHaveValidToolArguments(options?: RepeatOptions): R;
  /**
   * A tool was called `minRepeats` times (default 3) with the same arguments (`tool_loops`);
   * `.not.toHaveRepeatedToolCalls()` asserts the agent does not loop.
   */
  toHaveRepeatedToolCalls(options?: RepeatedToolCallsOptions & RepeatOptions): R;
  /**
   * The run's tool sequence (one call per line, volatile arguments left out or masked) matches the
   * stored snapshot: vitest's own snapshot files, written on the first run, updated with `-u`.
   * Needs vitest 4.1 or later.
   */
  toMatchToolSnapshot(options?: ToolSnapshotOptions): R;
  /** The same, stored inline in the test file: `toMatchInlineToolSnapshot(options?, snapshot?)`. */
  toMatchInlineToolSnapshot(
    optionsOrSnapshot?: ToolSnapshotOptions | string,
    inlineSnapshot?: string,
  ): R;
}

/**
 * The matcher functions' signatures, as `expect.extend` receives them: the surface of
 * {@link toolMatchers}, written out so that the files it is built from can change freely.
 */
// A type, not an interface: `expect.extend` needs the implicit index signature of a type literal.
export type ToolMatcherFunctions = {
  toHaveUsedTools(
    this: MatcherState,
    received: unknown,
    names: readonly string[],
    options?: UsedToolsOptions & RepeatOptions,
  ): MatcherOutcome;
  toHaveCalledTool(
    this: MatcherState,
    received: unknown,
    name: string,
    args?: unknown,
    options?: RepeatOptions,
  ): MatcherOutcome;
  toHaveCalledToolsInOrder(
    this: MatcherState,
    received: unknown,
    calls: readonly ExpectedToolCall[],
    options?: ToolOrderOptions & RepeatOptions,
  ): MatcherOutcome;
  toHaveRoutedTo(
    this: MatcherState,
    received: unknown,
    agents: readonly string[],
    options?: RoutedToOptions & RepeatOptions,
  ): MatcherOutcome;
  toPassScorer(
    this: MatcherState,
    received: unknown,
    scorer: Scorer<unknown> | string,
    testCase?: Omit<Partial<TestCase>, 'scorers'>,
    scorerOptions?: Record<string, unknown>,
    repeat?: RepeatOptions,
  ): Promise<MatcherOutcome>;
  toHaveNoToolErrors(
    this: MatcherState,
    received: unknown,
    options?: NoToolErrorsOptions & RepeatOptions,
  ): MatcherOutcome;
  toHaveValidToolArguments(
    this: MatcherState,
    received: unknown,
    options?: RepeatOptions,
  ): MatcherOutcome;
  toHaveRepeatedToolCalls(
    this: MatcherState,
    received: unknown,
    options?: RepeatedToolCallsOptions & RepeatOptions,
  ): MatcherOutcome;
  toMatchToolSnapshot(
    this: MatcherState,
    received: unknown,
    options?: ToolSnapshotOptions,
  ): MatcherOutcome;
  toMatchInlineToolSnapshot(
    this: MatcherState,
    received: unknown,
    optionsOrSnapshot?: ToolSnapshotOptions | string,
    inlineSnapshot?: string,
  ): MatcherOutcome;
};

/**
 * The matcher functions for `expect.extend`, registered by importing `spanscore/vitest`, one file
 * each. Each takes one run, or an array of runs (`captureTrace.repeat`): then the matcher passes
 * when at least `minPassRate` of the runs pass (default: all), and a failure lists each run's
 * verdict and tool sequence, with the pass rate and its 95% Wilson interval. The snapshot
 * matchers take one run.
 */
export const toolMatchers: ToolMatcherFunctions = {
  toHaveUsedTools,
  toHaveCalledTool,
  toHaveCalledToolsInOrder,
  toHaveRoutedTo,
  toPassScorer,
  toHaveNoToolErrors,
  toHaveValidToolArguments,
  toHaveRepeatedToolCalls,
  toMatchToolSnapshot,
  toMatchInlineToolSnapshot,
};

import * as vitest from 'vitest';
import type { MatcherState } from 'vitest';
import { toolSnapshot, type ToolSnapshotOptions } from './tool-snapshot.js';

export type { ToolSnapshotOptions } from './tool-snapshot.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { BUILTIN_SCORERS } from '../score/builtin-scorers.js';
import { compareArguments, type ArgumentMode } from '../score/deterministic/compare-arguments.js';
import { nameKey } from '../score/name-key.js';
import { agentRouting } from '../score/deterministic/agent-routing.js';
import { toolCorrectness } from '../score/deterministic/tool-correctness.js';
import { toolTrajectory } from '../score/deterministic/tool-trajectory.js';
import type { ScoreResult } from '../score/score-result.js';
import { expectedToolsOf } from '../score/expected-tools.js';
import type { Scorer } from '../score/scorer.js';
import {
  aliasesOf,
  asTrace,
  json,
  reasonOf,
  report,
  sequence,
  type MatcherOutcome,
  type Received,
} from './matcher-report.js';
import { asserting, overRuns, runsOf, summarizeRuns, type RepeatOptions } from './repeat-runs.js';
import { toHaveNoToolErrors, type NoToolErrorsOptions } from './to-have-no-tool-errors.js';
import {
  toHaveRepeatedToolCalls,
  type RepeatedToolCallsOptions,
} from './to-have-repeated-tool-calls.js';
import { toHaveValidToolArguments } from './to-have-valid-tool-arguments.js';

export type { NoToolErrorsOptions, RepeatOptions, RepeatedToolCallsOptions };
import type { ExpectedCall, TestCase } from '../score/test-case.js';

/**
 * One expected call of `toHaveCalledToolsInOrder`: a tool name, or a name with arguments and the
 * agent that must make it.
 */
export type ExpectedToolCall = string | { name: string; args?: unknown; agent?: string };

/**
 * The second argument of `toHaveCalledTool` when it names the agent: `{ agent }`, or
 * `{ agent, args }`. Any other value is the arguments expected.
 */
export interface CalledByAgent {
  agent: string;
  args?: unknown;
}

/** Options of `toHaveRoutedTo`. */
export interface RoutedToOptions {
  /** How the route compares with `agents` (see the `agent_routing` scorer). @defaultValue 'exact' */
  match?: 'exact' | 'in_order' | 'any_order';
  /** `count`: a return to an earlier agent is a step too. @defaultValue 'ignore' */
  returns?: 'ignore' | 'count';
}

/** Options of `toHaveUsedTools`. */
export interface UsedToolsOptions {
  /** Tool-name aliases (`{ alias: canonical }`); default: those the trace was captured with. */
  aliases?: Record<string, string>;
}

/** Options of `toHaveCalledToolsInOrder`. */
export interface ToolOrderOptions {
  /**
   * `exact` (default): the calls are exactly these, in this order, nothing else. `subsequence`:
   * these calls happen in this order, other calls may come between and around them.
   */
  match?: 'exact' | 'subsequence';
  /** How expected arguments compare with a call's (see `compareArguments`). @defaultValue 'subset' */
  args?: ArgumentMode;
  /** Tool-name aliases; default: those the trace was captured with. */
  aliases?: Record<string, string>;
}

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

/** The matchers on one run; {@link toolMatchers} also takes an array of runs. */
const singleRunMatchers = {
  toHaveUsedTools(
    this: MatcherState,
    received: unknown,
    expectedNames: readonly string[],
    options: UsedToolsOptions = {},
  ): MatcherOutcome {
    const trace = asTrace(received, 'toHaveUsedTools');
    const names: unknown = expectedNames;
    if (!Array.isArray(names) || !names.every((n): n is string => typeof n === 'string'))
      throw new TypeError('toHaveUsedTools: expected an array of tool names');
    const result = toolCorrectness.score({
      trace: trace as NormalizedTrace,
      testCase: undefined,
      options: toolCorrectness.parseOptions({ expectedTools: [...names] }),
      aliases: aliasesOf(trace, options.aliases),
    }) as ScoreResult;
    const pass = result.status === 'scored' && result.label === 'pass';
    const actual = trace.toolsUsed;
    return {
      pass,
      actual,
      expected: [...names],
      message: () =>
        report(this, 'toHaveUsedTools', {
          claim: this.isNot
            ? 'Expected the tools used not to be exactly (as a set)'
            : 'Expected the tools used to be exactly (as a set)',
          expected: [...names],
          actualLabel: 'Tools used',
          actual,
          detail: pass ? undefined : reasonOf(result),
          trace,
        }),
    };
  },

  toHaveCalledTool(
    this: MatcherState,
    received: unknown,
    name: string,
    argsOrAgent?: unknown,
  ): MatcherOutcome {
    const trace = asTrace(received, 'toHaveCalledTool');
    if (typeof name !== 'string' || name === '')
      throw new TypeError('toHaveCalledTool: expected a tool name');
    const byAgent = asCalledByAgent(argsOrAgent);
    const agent = byAgent?.agent;
    const args = byAgent ? byAgent.args : argsOrAgent;
    const key = nameKey(true, aliasesOf(trace, undefined));
    const named = trace.toolSequence.filter(c => key.call(c) === key.expected(name));
    const calls =
      agent === undefined ? named : named.filter(c => (c.agent ?? trace.agentName) === agent);
    const hits =
      args === undefined
        ? calls
        : calls.filter(c => compareArguments(args, c.arguments, 'subset') === 1);
    const pass = hits.length > 0;
    const shown = `${args === undefined ? name : `${name}(${json(args)})`}${agent === undefined ? '' : ` by ${agent}`}`;
    const subset = args === undefined ? '' : ' (arguments as a subset)';
    const others = named
      .filter(c => !calls.includes(c))
      .map(c => c.agent ?? trace.agentName ?? 'no agent');
    const detail = pass
      ? `matching call${hits.length > 1 ? 's' : ''}: ${sequence(hits)}`
      : calls.length === 0
        ? named.length === 0
          ? `${name} was never called`
          : `${name} was called by ${[...new Set(others)].join(', ')}, not by ${agent}`
        : `${calls.length} call${calls.length > 1 ? 's' : ''} of ${name}${agent === undefined ? '' : ` by ${agent}`}, none with arguments containing ${json(args)}: ${sequence(calls)}`;
    return {
      pass,
      message: () =>
        report(this, 'toHaveCalledTool', {
          claim: `Expected ${this.isNot ? 'no call' : 'a call'} of ${shown}${subset}`,
          expected: [name],
          actualLabel: 'Tools called',
          actual: trace.toolSequence.map(c => c.name),
          detail,
          trace,
          diff: false,
        }),
    };
  },

  toHaveCalledToolsInOrder(
    this: MatcherState,
    received: unknown,
    expectedCalls: readonly ExpectedToolCall[],
    options: ToolOrderOptions = {},
  ): MatcherOutcome {
    const trace = asTrace(received, 'toHaveCalledToolsInOrder');
    const calls: unknown = expectedCalls;
    if (!Array.isArray(calls))
      throw new TypeError('toHaveCalledToolsInOrder: expected an array of tool names or calls');
    const match = options.match ?? 'exact';
    if (match !== 'exact' && match !== 'subsequence')
      throw new TypeError(
        `toHaveCalledToolsInOrder: match must be 'exact' or 'subsequence', got ${JSON.stringify(match)}`,
      );
    const expected = (calls as unknown[]).map((c, i): ExpectedCall => {
      if (typeof c === 'string') return { name: c };
      const call = c as { name?: unknown; args?: unknown; agent?: unknown } | null;
      if (
        call &&
        typeof call === 'object' &&
        typeof call.name === 'string' &&
        (call.agent === undefined || typeof call.agent === 'string')
      )
        return {
          name: call.name,
          ...(call.args !== undefined && { args: call.args }),
          ...(typeof call.agent === 'string' && { agent: call.agent }),
        };
      throw new TypeError(
        `toHaveCalledToolsInOrder: calls[${i}] is neither a name nor { name, args?, agent? }`,
      );
    });
    const result = trajectory(
      trace,
      expected,
      match === 'exact' ? 'exact' : 'in_order',
      options.args ?? 'subset',
      aliasesOf(trace, options.aliases),
    );
    const pass = result.status === 'scored' && result.label === 'pass';
    const expectedNames = expected.map(e => e.name);
    const actual = trace.toolSequence.map(c => c.name);
    const how = match === 'exact' ? 'exactly, in this order' : 'in this order (a subsequence)';
    return {
      pass,
      actual,
      expected: expectedNames,
      message: () =>
        report(this, 'toHaveCalledToolsInOrder', {
          claim: this.isNot ? `Expected the calls not to be ${how}` : `Expected the calls ${how}`,
          expected: expected.map(
            e =>
              `${e.args === undefined ? e.name : `${e.name}(${json(e.args)})`}${e.agent === undefined ? '' : ` by ${e.agent}`}`,
          ),
          actualLabel: 'Calls',
          actual,
          detail: pass ? undefined : reasonOf(result),
          trace,
        }),
    };
  },

  toHaveRoutedTo(
    this: MatcherState,
    received: unknown,
    agents: readonly string[],
    options: RoutedToOptions = {},
  ): MatcherOutcome {
    const trace = asTrace(received, 'toHaveRoutedTo');
    const given: unknown = agents;
    if (!Array.isArray(given) || given.some((a: unknown) => typeof a !== 'string' || a === ''))
      throw new TypeError('toHaveRoutedTo: expected an array of agent names');
    const result = agentRouting.score({
      trace: { agents: [], handoffs: [], ...trace } as NormalizedTrace,
      testCase: undefined,
      options: agentRouting.parseOptions({
        expectedAgents: agents,
        ...(options.match && { match: options.match }),
        ...(options.returns && { returns: options.returns }),
      }),
      aliases: new Map(),
    }) as ScoreResult;
    const pass = result.status === 'scored' && result.label === 'pass';
    const route = (trace.agents ?? []).map(t => t.agent);
    return {
      pass,
      actual: route,
      expected: [...agents],
      message: () =>
        report(this, 'toHaveRoutedTo', {
          claim: `Expected the route ${this.isNot ? 'not ' : ''}to be ${agents.join(' → ')} (${options.match ?? 'exact'})`,
          expected: [...agents],
          actualLabel: 'Route',
          actual: route,
          detail: pass ? undefined : reasonOf(result),
          trace,
        }),
    };
  },

  async toPassScorer(
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
    const full = trace as Received & Partial<NormalizedTrace>;
    let result: ScoreResult;
    try {
      result = await resolved.score({
        trace: full as NormalizedTrace,
        testCase: { id: full.testCaseId ?? 'vitest', ...testCase, scorers: [] },
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
    const expectedTools = expectedToolsOf(testCase);
    return {
      pass,
      message: () =>
        report(this, 'toPassScorer', {
          claim: `Expected ${resolved.name} ${this.isNot ? 'not ' : ''}to pass; it gave ${verdict}`,
          expected: expectedTools,
          actualLabel: 'Calls',
          actual: trace.toolSequence.map(c => c.name),
          detail: reasonOf(result),
          trace,
        }),
    };
  },
};

/** vitest's composable snapshot matchers (4.1+), or a clear error on an older vitest. */
function snapshots(matcher: string): NonNullable<typeof vitest.Snapshots> {
  // Read through the namespace: on a vitest without it, the import is undefined, not an error.
  const found = (vitest as { Snapshots?: typeof vitest.Snapshots }).Snapshots;
  if (!found) throw new TypeError(`${matcher} needs vitest 4.1 or later (its Snapshots helpers)`);
  return found;
}

/**
 * The matcher functions for `expect.extend`, registered by importing `spanscore/vitest`. Each
 * takes one run, or an array of runs (`captureTrace.repeat`): then the matcher passes when at
 * least `minPassRate` of the runs pass (default: all), and a failure lists each run's verdict and
 * tool sequence, with the pass rate and its 95% Wilson interval.
 */
export const toolMatchers = {
  toHaveUsedTools(
    this: MatcherState,
    received: unknown,
    names: readonly string[],
    options: UsedToolsOptions & RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveUsedTools', received, options.minPassRate, (state, run) =>
      singleRunMatchers.toHaveUsedTools.call(state, run, names, options),
    );
  },

  toHaveCalledTool(
    this: MatcherState,
    received: unknown,
    name: string,
    args?: unknown,
    options: RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveCalledTool', received, options.minPassRate, (state, run) =>
      singleRunMatchers.toHaveCalledTool.call(state, run, name, args),
    );
  },

  toHaveCalledToolsInOrder(
    this: MatcherState,
    received: unknown,
    calls: readonly ExpectedToolCall[],
    options: ToolOrderOptions & RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveCalledToolsInOrder', received, options.minPassRate, (state, run) =>
      singleRunMatchers.toHaveCalledToolsInOrder.call(state, run, calls, options),
    );
  },

  toHaveRoutedTo(
    this: MatcherState,
    received: unknown,
    agents: readonly string[],
    options: RoutedToOptions & RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveRoutedTo', received, options.minPassRate, (state, run) =>
      singleRunMatchers.toHaveRoutedTo.call(state, run, agents, options),
    );
  },

  async toPassScorer(
    this: MatcherState,
    received: unknown,
    scorer: Scorer<unknown> | string,
    testCase: Omit<Partial<TestCase>, 'scorers'> = {},
    scorerOptions: Record<string, unknown> = {},
    repeat: RepeatOptions = {},
  ): Promise<MatcherOutcome> {
    const runs = runsOf(received, repeat.minPassRate, 'toPassScorer');
    if (!runs)
      return singleRunMatchers.toPassScorer.call(this, received, scorer, testCase, scorerOptions);
    const outcomes = [];
    for (const run of runs)
      outcomes.push(
        await singleRunMatchers.toPassScorer.call(
          asserting(this),
          run,
          scorer,
          testCase,
          scorerOptions,
        ),
      );
    return summarizeRuns(this, 'toPassScorer', runs, outcomes, repeat.minPassRate ?? 1);
  },

  toHaveNoToolErrors(
    this: MatcherState,
    received: unknown,
    options: NoToolErrorsOptions & RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveNoToolErrors', received, options.minPassRate, (state, run) =>
      toHaveNoToolErrors.call(state, run, options),
    );
  },

  toHaveValidToolArguments(
    this: MatcherState,
    received: unknown,
    options: RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveValidToolArguments', received, options.minPassRate, (state, run) =>
      toHaveValidToolArguments.call(state, run),
    );
  },

  toHaveRepeatedToolCalls(
    this: MatcherState,
    received: unknown,
    options: RepeatedToolCallsOptions & RepeatOptions = {},
  ): MatcherOutcome {
    return overRuns(this, 'toHaveRepeatedToolCalls', received, options.minPassRate, (state, run) =>
      toHaveRepeatedToolCalls.call(state, run, options),
    );
  },

  toMatchToolSnapshot(
    this: MatcherState,
    received: unknown,
    options: ToolSnapshotOptions = {},
  ): MatcherOutcome {
    const trace = asTrace(received, 'toMatchToolSnapshot');
    return snapshots('toMatchToolSnapshot').toMatchSnapshot.call(
      this,
      toolSnapshot(trace.toolSequence, options),
    );
  },

  toMatchInlineToolSnapshot(
    this: MatcherState,
    received: unknown,
    optionsOrSnapshot?: ToolSnapshotOptions | string,
    inlineSnapshot?: string,
  ): MatcherOutcome {
    const trace = asTrace(received, 'toMatchInlineToolSnapshot');
    // As vitest's toMatchInlineSnapshot(properties?, snapshot?): it writes the snapshot after
    // an object first argument, or as the first argument.
    const [options, snapshot] =
      typeof optionsOrSnapshot === 'string'
        ? [{}, optionsOrSnapshot]
        : [optionsOrSnapshot ?? {}, inlineSnapshot];
    const serialized = toolSnapshot(trace.toolSequence, options);
    return snapshot === undefined
      ? snapshots('toMatchInlineToolSnapshot').toMatchInlineSnapshot.call(this, serialized)
      : snapshots('toMatchInlineToolSnapshot').toMatchInlineSnapshot.call(
          this,
          serialized,
          snapshot,
        );
  },
};

function trajectory(
  trace: Received,
  expectedCalls: ExpectedCall[],
  match: 'exact' | 'in_order',
  args: ArgumentMode,
  aliases: ReadonlyMap<string, string> | undefined,
): ScoreResult {
  return toolTrajectory.score({
    trace: trace as NormalizedTrace,
    testCase: undefined,
    options: toolTrajectory.parseOptions({ expectedCalls, match, args }),
    aliases: aliases ?? new Map(),
  }) as ScoreResult;
}

/** `{ agent }` or `{ agent, args }`: the second argument of `toHaveCalledTool` naming the agent. */
function asCalledByAgent(value: unknown): CalledByAgent | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const agent = (value as { agent?: unknown }).agent;
  return typeof agent === 'string' && keys.every(k => k === 'agent' || k === 'args')
    ? (value as CalledByAgent)
    : undefined;
}

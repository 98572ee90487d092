import type { SpanDigest } from '../ingest/span-digest.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from '../normalize/find-test-case-id.js';
import { DEFAULT_SESSION_ID_ATTRIBUTES } from '../normalize/find-session-id.js';
import type { ResolvedScorer } from './run-scorers.js';
import type { TestCase } from './test-case.js';

/** What a test case requires of its repeated runs (a suite's or a case's `trials`). */
export interface TrialsRequirement {
  /** Runs needed before the case can pass. */
  min: number;
  /** Pass rate needed, 0–1. */
  passRate: number;
  /** The k of `pass@k` and `pass^k`; default: the runs. */
  k?: number;
}

/** A test case with its scorers resolved and their options validated. */
export interface SuiteCase {
  testCase: TestCase;
  scorers: ResolvedScorer[];
  /** What its repeated runs must reach (the case's own `trials`, else the suite's). */
  trials?: TrialsRequirement;
}

/** A loaded, validated suite (`suite/load-suite.ts` builds it). Immutable after loading. */
export interface Suite {
  file: string;
  name: string;
  aliases: ReadonlyMap<string, string>;
  testCaseIdAttributes: readonly string[];
  /** Attributes a session id is read from after the defaults (`sessionIdAttributes`). */
  sessionIdAttributes: readonly string[];
  cases: readonly SuiteCase[];
  /** Test cases by id. */
  byId: ReadonlyMap<string, SuiteCase>;
}

/** A production rule ready to apply (`suite/production-rules.ts` compiles it from config). */
export interface ProductionRule {
  name: string;
  /** Whether the trace's root span passes the rule's `match` (service, root name, attributes). */
  matches(trace: { readonly root: SpanDigest | undefined }): boolean;
  /** The rule's deterministic sample, by trace id. */
  sampled(traceId: string): boolean;
  aliases: ReadonlyMap<string, string>;
  scorers: ResolvedScorer[];
}

/**
 * Tool health: the reference-free scorers (`tool_errors`, `tool_arguments`, `tool_loops`) run on
 * every trace no suite or rule scores, sampled by trace id (`suite/tool-health-rule.ts` builds it
 * from the `toolHealth` config).
 */
export interface ToolHealthRule {
  sampled(traceId: string): boolean;
  scorers: ResolvedScorer[];
  /**
   * Tool health across production conversations (`toolHealth.sessions`): whether a session is
   * gathered and scored (decided by its id, so every turn alike), and the scorers run across it
   * (`tool_loops`, `tool_errors`). Absent when off.
   */
  sessions?: ToolHealthSessions | undefined;
}

/** What {@link ToolHealthRule.sessions} holds. */
export interface ToolHealthSessions {
  /** Whether the conversation is gathered and scored: decided by its session id alone. */
  sampled(sessionId: string): boolean;
  /** The scorers run across the conversation's turns. */
  scorers: ResolvedScorer[];
}

/** The target name of tool-health results: their `suite` and `testCaseId`. */
export const TOOL_HEALTH_TARGET = 'rule:tool-health';

/** Everything that decides what a trace is scored against: suites, then rules, then tool health. */
export interface ScoringPlan {
  suites: readonly Suite[];
  /** Applied to traces that belong to no suite's test case. */
  rules: readonly ProductionRule[];
  /** Applied to traces no suite or rule scores; absent when off (and offline). */
  toolHealth?: ToolHealthRule | undefined;
  /**
   * Attributes a session id is read from after the defaults (`sessions.idAttributes`); sessions
   * are not read at all when `false` (`sessions.enabled: false`).
   */
  sessionIdAttributes?: readonly string[] | false;
  /**
   * `sessions.idleMs` where sessions are scored live (`serve`, `worker`): a turn's run record says
   * when its session will be scored. Absent offline, where a session is scored once every trace
   * is read.
   */
  sessionIdleMs?: number | undefined;
}

const sessionAttributesOf = new WeakMap<ScoringPlan, readonly string[] | false>();

/**
 * Every attribute a plan reads a session id from: the defaults, then the plan's own, then each
 * suite's, each once; `false` when sessions are off. Built once per plan, not per trace.
 */
export function planSessionIdAttributes(plan: ScoringPlan): readonly string[] | false {
  let attributes = sessionAttributesOf.get(plan);
  if (attributes === undefined) {
    const own = plan.sessionIdAttributes;
    const suites = plan.suites.flatMap(s => s.sessionIdAttributes);
    attributes =
      own === false
        ? false
        : [...new Set([...DEFAULT_SESSION_ID_ATTRIBUTES, ...(own ?? []), ...suites])];
    sessionAttributesOf.set(plan, attributes);
  }
  return attributes;
}

const idAttributesOf = new WeakMap<ScoringPlan, readonly string[]>();

/**
 * Every attribute a plan reads a test case id from: the defaults, then each suite's, each once.
 * Built once per plan, not per trace.
 */
export function planTestCaseIdAttributes(plan: ScoringPlan): readonly string[] {
  let attributes = idAttributesOf.get(plan);
  if (!attributes) {
    attributes = [
      ...new Set([
        ...DEFAULT_TEST_CASE_ID_ATTRIBUTES,
        ...plan.suites.flatMap(s => s.testCaseIdAttributes),
      ]),
    ];
    idAttributesOf.set(plan, attributes);
  }
  return attributes;
}

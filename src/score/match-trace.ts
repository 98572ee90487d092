import type { SpanDigest } from '../ingest/span-digest.js';
import { MAX_SHOWN_ID_CHARS, shownText } from '../normalize/shown-text.js';
import type { TraceIds } from './read-trace-ids.js';
import type { ResolvedScorer } from './run-scorers.js';
import { TOOL_HEALTH_TARGET, type ScoringPlan } from './scoring-plan.js';
import type { TestCase } from './test-case.js';

/** One thing a trace is scored against: a suite's test case, or a production rule. */
export interface ScoringTarget {
  kind: 'test_case' | 'rule';
  /** The suite's name, or `rule:<name>`. */
  suite: string;
  /** The test case id, or `rule:<name>`. */
  testCaseId: string;
  testCase: TestCase | undefined;
  scorers: readonly ResolvedScorer[];
  aliases: ReadonlyMap<string, string>;
}

/**
 * Why a trace matched nothing, as a code for metrics (`spanscore_traces_not_scored_total{reason}`):
 * no suites or rules at all; every matching rule sampled it out; its test case id is in no suite;
 * no production rule matched; no test case id and no rules to fall back on; only tool health would
 * score it, and it records no tool call (set by `scoreTrace`, which normalizes it).
 */
export type NotScoredCode =
  | 'nothing_configured'
  | 'sampled_out'
  | 'unknown_test_case'
  | 'no_rule_matched'
  | 'no_test_case_id'
  | 'no_tool_calls'
  | 'session_test_case';

/** What {@link matchTrace} found: the targets, or why there are none. */
export interface TraceMatch {
  targets: ScoringTarget[];
  /** Why nothing matched; `undefined` when a target did. */
  reason: string | undefined;
  /** The same, as a code; `undefined` when a target did. */
  reasonCode: NotScoredCode | undefined;
  /**
   * The first test case id found with any suite's id attributes, known to a suite or not; one no
   * suite has is cut at {@link MAX_SHOWN_ID_CHARS} (`shownText`).
   */
  testCaseId: string | undefined;
  /** The attribute it was read from. */
  testCaseIdAttribute: string | undefined;
  /**
   * A turn of a session test case (`reasonCode` `session_test_case`): the first such case's id and
   * its suite's aliases, to read the turn's calls as its session will (shown while it waits).
   */
  sessionTurn?: { testCaseId: string; aliases: ReadonlyMap<string, string> } | undefined;
}

/**
 * Decides what a trace is scored against, without normalizing it: every suite whose test-case id
 * attributes name one of its test cases; else every production rule whose `match` the root span
 * passes and whose sample keeps the trace; else tool health, when on and its sample keeps the
 * trace. With no target, `reason` says why, in words a person reads on a run record ("no test case
 * id attribute …", "sampled out by rule …"). The trace's ids come read (`readTraceIds`): matching
 * reads no span but the root.
 */
export function matchTrace(
  traceId: string,
  root: SpanDigest | undefined,
  ids: Pick<TraceIds, 'bySuite' | 'byDefaults'>,
  plan: ScoringPlan,
): TraceMatch {
  const targets: ScoringTarget[] = [];
  let found: { id: string; attribute: string } | undefined;
  // Made at a trace's first session test case: most traces are no session's turn.
  let sessionCases: string[] | undefined;
  let sessionTurn: TraceMatch['sessionTurn'];
  let sessionScorers: Set<string> | undefined;
  // Index loops: matching runs once a trace, and a for-of left an iterator result per item.
  for (let i = 0; i < plan.suites.length; i++) {
    const suite = plan.suites[i]!;
    const inSuite = ids.bySuite[i];
    found ??= inSuite;
    const suiteCase = inSuite && suite.byId.get(inSuite.id);
    if (!suiteCase) continue;
    // A session's test case is scored on the session (`scoreSession`), never on one turn.
    if (suiteCase.testCase.session) {
      (sessionCases ??= []).push(`${suite.name} / ${suiteCase.testCase.id}`);
      sessionTurn ??= { testCaseId: suiteCase.testCase.id, aliases: suite.aliases };
      sessionScorers ??= new Set();
      for (const s of suiteCase.scorers) sessionScorers.add(s.scorer.name);
      continue;
    }
    targets.push({
      kind: 'test_case',
      suite: suite.name,
      testCaseId: suiteCase.testCase.id,
      testCase: suiteCase.testCase,
      scorers: suiteCase.scorers,
      aliases: suite.aliases,
    });
  }
  if (targets.length > 0)
    return {
      targets,
      reason: undefined,
      reasonCode: undefined,
      testCaseId: shownId(found, plan),
      testCaseIdAttribute: found?.attribute,
    };
  if (sessionCases)
    return {
      // Tool health still looks at the turn itself (a failed call inside a tested turn), with
      // the scorers its session test cases do not run on the session.
      targets: turnHealth(traceId, plan, sessionScorers!),
      reason: `a turn of session test case ${sessionCases.join(', ')}: scored with its session`,
      reasonCode: 'session_test_case',
      testCaseId: shownId(found, plan),
      testCaseIdAttribute: found?.attribute,
      sessionTurn,
    };
  // Said on the run record even when no suite reads it: the default id attributes.
  if (plan.suites.length === 0) found = ids.byDefaults;
  const foundId = shownId(found, plan);

  const sampledOut: string[] = [];
  for (let r = 0; r < plan.rules.length; r++) {
    const rule = plan.rules[r]!;
    if (!rule.matches({ root })) continue;
    if (!rule.sampled(traceId)) {
      sampledOut.push(rule.name);
      continue;
    }
    const name = `rule:${rule.name}`;
    targets.push({
      kind: 'rule',
      suite: name,
      testCaseId: name,
      testCase: undefined,
      scorers: rule.scorers,
      aliases: rule.aliases,
    });
  }
  const health = plan.toolHealth;
  if (targets.length === 0 && health) {
    if (health.sampled(traceId))
      targets.push({
        kind: 'rule',
        suite: TOOL_HEALTH_TARGET,
        testCaseId: TOOL_HEALTH_TARGET,
        testCase: undefined,
        scorers: health.scorers,
        aliases: NO_ALIASES,
      });
    else sampledOut.push('tool-health');
  }
  if (targets.length > 0)
    return {
      targets,
      reason: undefined,
      reasonCode: undefined,
      testCaseId: foundId,
      testCaseIdAttribute: found?.attribute,
    };
  return {
    targets,
    reason: whyNotMatched(plan, foundId, sampledOut, root),
    reasonCode: notMatchedCode(plan, foundId, sampledOut),
    testCaseId: foundId,
    testCaseIdAttribute: found?.attribute,
  };
}

const NO_ALIASES: ReadonlyMap<string, string> = new Map();

/**
 * Tool health on a turn of a session test case: its scorers but those the session's test cases
 * run (they score the whole conversation), in tool health's sample; none when it is off.
 */
function turnHealth(
  traceId: string,
  plan: ScoringPlan,
  sessionScorers: ReadonlySet<string>,
): ScoringTarget[] {
  const health = plan.toolHealth;
  if (!health || !health.sampled(traceId)) return [];
  const scorers = health.scorers.filter(s => !sessionScorers.has(s.scorer.name));
  return scorers.length === 0
    ? []
    : [
        {
          kind: 'rule',
          suite: TOOL_HEALTH_TARGET,
          testCaseId: TOOL_HEALTH_TARGET,
          testCase: undefined,
          scorers,
          aliases: NO_ALIASES,
        },
      ];
}

function whyNotMatched(
  plan: ScoringPlan,
  testCaseId: string | undefined,
  sampledOut: readonly string[],
  root: SpanDigest | undefined,
): string {
  if (plan.suites.length === 0 && plan.rules.length === 0 && !plan.toolHealth)
    return 'no suites or production rules are configured, and tool health is off';
  const parts: string[] = [];
  if (plan.suites.length > 0) {
    parts.push(
      testCaseId === undefined
        ? `no test case id attribute (${[...new Set(plan.suites.flatMap(s => s.testCaseIdAttributes))].join(', ')})`
        : `test case "${testCaseId}" is in no suite (${plan.suites.map(s => s.name).join(', ')})`,
    );
  }
  const byRules = sampledOut.filter(name => name !== 'tool-health');
  if (byRules.length > 0)
    parts.push(`sampled out by rule${byRules.length > 1 ? 's' : ''} ${byRules.join(', ')}`);
  else if (plan.rules.length > 0) {
    const what = root
      ? `service "${inDetail(root.serviceName)}", root span "${inDetail(shownText(root.name))}"`
      : 'the trace has no root span';
    parts.push(`no production rule matched (${what})`);
  }
  if (byRules.length < sampledOut.length)
    parts.push('sampled out of tool health (toolHealth.sampleRate)');
  return parts.join('; ');
}

/**
 * A trace's text inside a reason's parenthesized detail, its parentheses written as brackets: the
 * counters of traces not scored drop a reason's details (`notScoredField`), and a `)` in a service
 * or root span name closed the detail early, so each such name counted under a field of its own.
 */
function inDetail(text: string): string {
  return text.replace(/[()]/g, c => (c === '(' ? '[' : ']'));
}

function notMatchedCode(
  plan: ScoringPlan,
  testCaseId: string | undefined,
  sampledOut: readonly string[],
): NotScoredCode {
  if (plan.suites.length === 0 && plan.rules.length === 0 && !plan.toolHealth)
    return 'nothing_configured';
  if (sampledOut.length > 0) return 'sampled_out';
  if (plan.rules.length > 0) return 'no_rule_matched';
  return testCaseId === undefined ? 'no_test_case_id' : 'unknown_test_case';
}

/** The id found, as a run shows it: whole when a suite has it (it may be long), else shown. */
function shownId(found: { id: string } | undefined, plan: ScoringPlan): string | undefined {
  if (!found || found.id.length <= MAX_SHOWN_ID_CHARS) return found?.id;
  return plan.suites.some(s => s.byId.has(found.id)) ? found.id : shownText(found.id);
}

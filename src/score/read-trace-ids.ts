import {
  DEFAULT_TEST_CASE_ID_ATTRIBUTES,
  testCaseIdNames,
} from '../normalize/find-test-case-id.js';
import { findIdAttributes, type IdNames, type IdSource } from '../normalize/find-id-attribute.js';
import { sessionIdNames, sessionIdOf, type SessionIdSource } from '../normalize/find-session-id.js';
import type { IndexedTrace } from '../normalize/indexed-trace.js';
import { planSessionIdAttributes, type ScoringPlan } from './scoring-plan.js';

/** A trace's ids as a plan reads them (see {@link readTraceIds}). */
export interface TraceIds {
  /** The test case id under each suite's `testCaseIdAttributes`, in the plan's order of suites. */
  bySuite: ReadonlyArray<IdSource | undefined>;
  /**
   * The test case id under the default attributes: what rules and tool health read, and what the
   * run record says when no suite reads one.
   */
  byDefaults: IdSource | undefined;
  /** The session id (see `findSessionId`); `undefined` without one, or with sessions off. */
  session: SessionIdSource | undefined;
}

/** A plan's lists of id attributes, each once, and which answers which question. */
interface IdQuestions {
  lists: IdNames[];
  suites: number[];
  defaults: number;
  session: number | undefined;
}

const questionsOf = new WeakMap<ScoringPlan, IdQuestions>();

/** Built once per plan, not per trace; suites that read the same names share a list. */
function idQuestions(plan: ScoringPlan): IdQuestions {
  let questions = questionsOf.get(plan);
  if (!questions) {
    const lists: IdNames[] = [];
    const byNames = new Map<string, number>();
    const listOf = (keys: readonly string[]): number => {
      const names = keys.join('\n');
      let i = byNames.get(names);
      if (i === undefined) byNames.set(names, (i = lists.push(testCaseIdNames(keys)) - 1));
      return i;
    };
    const defaults = listOf(DEFAULT_TEST_CASE_ID_ATTRIBUTES);
    const suites = plan.suites.map(s => listOf(s.testCaseIdAttributes));
    const sessionKeys = planSessionIdAttributes(plan);
    const session = sessionKeys ? lists.push(sessionIdNames(sessionKeys)) - 1 : undefined;
    questions = { lists, suites, defaults, session };
    questionsOf.set(plan, questions);
  }
  return questions;
}

/**
 * Every id `scoreTrace` reads of a trace, in one walk over its spans (`findIdAttributes`): the test
 * case id as each suite reads it and as the defaults read it, and the session id when sessions
 * are on. Matching, rules, tool health and the run record take them from here: a trace's test case
 * id is looked up once, whoever asks.
 */
export function readTraceIds(
  trace: Pick<IndexedTrace, 'spans' | 'root'>,
  plan: ScoringPlan,
): TraceIds {
  const questions = idQuestions(plan);
  const found = findIdAttributes(trace.spans, trace.root, questions.lists);
  return {
    bySuite: questions.suites.map(i => found[i]),
    byDefaults: found[questions.defaults],
    session: questions.session === undefined ? undefined : sessionIdOf(found[questions.session]),
  };
}

import { agentsInOrder } from '../normalize/attribute-agents.js';
import { findSessionId } from '../normalize/find-session-id.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { callsOfTurn, sessionTrace } from '../normalize/session-trace.js';
import type { ToolCall } from '../normalize/tool-call.js';
import { stableArguments } from './volatile-arguments.js';

/** How recorded arguments are compared later: `tool_trajectory`'s `args` mode. */
export type RecordedArgsMode = 'exact' | 'subset' | 'ignore';

/** One expected call as recorded: the tool and its stable arguments. */
export interface RecordedCall {
  name: string;
  /** The agent that made the call, in a trace with agent spans. */
  agent?: string;
  args?: unknown;
}

/** A test case recorded from a trace. */
export interface RecordedCase {
  id: string;
  /** The conversation's first user message, when the trace recorded one. */
  input?: string;
  expectedTools: string[];
  expectedCalls: RecordedCall[];
  /** The route, when the trace has agent spans: the agents at their first takeover, in order. */
  expectedAgents?: string[];
  /**
   * Recorded from a session (two or more traces of the test case carry one session id): each turn's calls,
   * in turn order; `expectedCalls` is then empty and the case is a session test case.
   */
  turns?: RecordedCall[][];
  /** The trace it was recorded from. */
  recordedFrom: string;
  /** Argument paths left out as volatile (`book_flight.requestId`). */
  leftOut: string[];
  /** Other traces of the same test case, not recorded (the earliest one is). */
  otherTraces: number;
  /** True when the trace had no test case id and this one was made up from its root span. */
  generatedId: boolean;
}

/** Options of {@link recordTestCases}. */
export interface RecordOptions {
  args: RecordedArgsMode;
  /** Several traces of one test case are an error instead of "the earliest is recorded". */
  strict?: boolean;
}

/** What a recording gives: the cases, and what a person should know about them. */
export interface Recording {
  cases: RecordedCase[];
  warnings: string[];
  /** `--strict` violations: test cases with more than one trace. */
  conflicts: string[];
}

/**
 * Turns traces into test cases, one per test case id, in the order their earliest traces
 * started: the tools used (`expectedTools`) and every call in order with its arguments
 * (`expectedCalls`), volatile arguments left out (see `stableArguments`), with `args: 'ignore'`
 * none. When some trace's route went through several agents (a team), each call names its agent
 * and each route is recorded as `expectedAgents` (each agent at its first takeover, as
 * `agent_routing` compares by default). A test case whose traces span two or more traces of one
 * session (see `findSessionId`) is recorded from its earliest such session, as a session test
 * case: each of its traces a turn, with that turn's calls; a session of one trace records a plain
 * test case. A trace without a test case id gets one made from its
 * root span's name and its trace id, stable across recordings of the same trace. Pure.
 */
export function recordTestCases(
  traces: readonly NormalizedTrace[],
  options: RecordOptions,
): Recording {
  const ordered = [...traces].sort((a, b) => {
    const [x, y] = [a.root?.startTimeUnixNano ?? 0n, b.root?.startTimeUnixNano ?? 0n];
    return x < y ? -1 : x > y ? 1 : a.traceId.localeCompare(b.traceId);
  });
  const byId = new Map<string, RecordedCase>();
  const warnings: string[] = [];
  const teams = traces.some(t => agentsInOrder(t.agents).length > 1);
  const sessionOf = new Map(ordered.map(t => [t, findSessionId(t.spans, t.root)?.id]));
  // The traces recorded as the turns of a session case.
  const turnsRecorded = new Set<NormalizedTrace>();
  for (const trace of ordered) {
    const generatedId = trace.testCaseId === undefined;
    const id = trace.testCaseId ?? generatedIdOf(trace);
    const existing = byId.get(id);
    if (existing) {
      if (!turnsRecorded.has(trace)) existing.otherTraces++;
      continue;
    }
    // A test case whose traces carry a session id is recorded from the earliest session: its
    // traces, in start order, are the turns of a session test case.
    // A session of one trace is a plain test case: a test case id attribute that is also the
    // session id (`session.id`, as OpenInference and the OpenAI Agents SDK write it) gives every
    // run a session of its own, and a session test case would be scored only once idle.
    const inSession = generatedId ? undefined : sessionOf.get(trace);
    const sessionTraces =
      inSession === undefined
        ? [trace]
        : ordered.filter(t => t.testCaseId === trace.testCaseId && sessionOf.get(t) === inSession);
    const sessionId = sessionTraces.length >= 2 ? inSession : undefined;
    const turnTraces = sessionId === undefined ? [trace] : sessionTraces;
    const recorded = sessionId === undefined ? trace : sessionTrace(sessionId, turnTraces);
    for (const t of turnTraces) turnsRecorded.add(t);
    const leftOut: string[] = [];
    const expectedAgents = agentsInOrder(recorded.agents);
    // Agents are recorded for a team only (some recorded run went through several agents): in a
    // one-agent application they would say nothing more. A team's run that stayed with one agent
    // records that route too.
    const team = teams && expectedAgents.length > 0;
    const recordCall = (call: ToolCall): RecordedCall => {
      const named = {
        name: call.name,
        ...(team && call.agent !== undefined && { agent: call.agent }),
      };
      if (options.args === 'ignore') return named;
      const stable = stableArguments(call.arguments);
      leftOut.push(...stable.leftOut.map(path => `${call.name}.${path}`));
      return stable.args === undefined ? named : { ...named, args: stable.args };
    };
    const turns = recorded.session?.turns.map((_, i) => callsOfTurn(recorded, i).map(recordCall));
    const input = recorded.conversation.userInput;
    byId.set(id, {
      id,
      ...(input !== undefined && { input }),
      expectedTools: [...recorded.toolsUsed],
      expectedCalls: turns ? [] : recorded.toolSequence.map(recordCall),
      ...(team && { expectedAgents }),
      ...(turns && { turns }),
      recordedFrom: trace.traceId,
      leftOut,
      otherTraces: 0,
      generatedId,
    });
    if (sessionId !== undefined)
      warnings.push(
        `test case "${id}": recorded as a session test case from the ${turnTraces.length} trace(s) of session ${sessionId}`,
      );
    if (generatedId)
      warnings.push(
        `trace ${trace.traceId} has no test case id: recorded as "${id}"; tag its runs with spanscore.test_case.id=${id} (or use --test-case-id-attribute) to score them`,
      );
    if (trace.toolSequence.length === 0)
      warnings.push(
        `trace ${trace.traceId} (${id}) called no tool: recorded with expectedTools: []`,
      );
  }
  const cases = [...byId.values()];
  const conflicts = cases
    .filter(c => c.otherTraces > 0)
    .map(c => `test case "${c.id}" has ${c.otherTraces + 1} traces`);
  if (!options.strict)
    for (const c of cases.filter(c => c.otherTraces > 0))
      warnings.push(
        `test case "${c.id}": ${c.otherTraces + 1} traces; the earliest (${c.recordedFrom}) is recorded`,
      );
  return { cases, warnings, conflicts: options.strict ? conflicts : [] };
}

/** `<root span name>-<first 8 of the trace id>`, lower case, `[a-z0-9-]` only. */
function generatedIdOf(trace: NormalizedTrace): string {
  const name = (trace.root?.name ?? 'trace')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${name || 'trace'}-${trace.traceId.slice(0, 8)}`;
}

/** What {@link recordFromRunRecord} reads of a run record (the results store's). */
export interface RecordableRun {
  traceId: string;
  testCaseId: string | null;
  toolCalls: ReadonlyArray<{ name: string; arguments?: string; agent?: string }>;
  contentKept: boolean;
  /** The route, for a trace with agent spans. */
  agents?: ReadonlyArray<{ agent: string }>;
}

/**
 * The test case of a stored run, by the rules of {@link recordTestCases}: its tools and calls,
 * arguments parsed from the run record's JSON text with the volatile parts left out. A run record
 * keeps no conversation, so no `input`; arguments it did not keep (`results.storeContent` off) or
 * cut (past 2,000 characters, no longer JSON) are left out and say so.
 */
export function recordFromRunRecord(run: RecordableRun, args: RecordedArgsMode): RecordedCase {
  const leftOut: string[] = [];
  const expectedAgents = agentsInOrder(run.agents ?? []);
  const team = expectedAgents.length > 1;
  const expectedCalls = run.toolCalls.map((call): RecordedCall => {
    const named = {
      name: call.name,
      ...(team && call.agent !== undefined && { agent: call.agent }),
    };
    if (args === 'ignore' || call.arguments === undefined) return named;
    let parsed: unknown;
    try {
      parsed = JSON.parse(call.arguments);
    } catch {
      leftOut.push(`${call.name}.(arguments not kept whole)`);
      return named;
    }
    const stable = stableArguments(parsed);
    leftOut.push(...stable.leftOut.map(path => `${call.name}.${path}`));
    return stable.args === undefined ? named : { ...named, args: stable.args };
  });
  if (!run.contentKept && args !== 'ignore')
    leftOut.push('(arguments: not stored by this service)');
  const seen = new Set<string>();
  const expectedTools = run.toolCalls
    .map(c => c.name)
    .filter(name => !seen.has(name) && seen.add(name));
  return {
    id: run.testCaseId ?? `trace-${run.traceId.slice(0, 8)}`,
    expectedTools,
    expectedCalls,
    ...(team && { expectedAgents }),
    recordedFrom: run.traceId,
    leftOut,
    otherTraces: 0,
    generatedId: run.testCaseId === null,
  };
}

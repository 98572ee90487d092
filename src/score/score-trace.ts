import type { SpanDigest } from '../ingest/span-digest.js';
import { findSessionEnd } from '../normalize/find-session-end.js';
import { indexTrace } from '../normalize/indexed-trace.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import {
  diagnoseTrace,
  inputBoundedDiagnostic,
  type Diagnostic,
} from '../normalize/inspect-trace.js';
import { inputBoundHitCount } from '../normalize/input-bounds.js';
import { setFallbackSchemas, toolsWithoutSchema } from '../normalize/assess-tool-calls.js';
import type { SchemaLookup } from './schemas/schema-lookup.js';
import { isThenable } from './is-thenable.js';
import { matchTrace } from './match-trace.js';
import { phaseScorers } from './phase-scorers.js';
import { readTraceIds } from './read-trace-ids.js';
import { toolArguments } from './deterministic/tool-arguments.js';
import type { ResultSink } from './result-sink.js';
import { recordRunCalls } from './run-calls.js';
import {
  runScorersAtOnce,
  skippedOutcome,
  type ResolvedScorer,
  type ScorerOutcome,
} from './run-scorers.js';
import { sessionTurnReason } from './session-turn-reason.js';
import { TraceNormalizations } from './trace-normalizations.js';
import { unixNanoNow } from './unix-nano-now.js';
import {
  planSessionIdAttributes,
  planTestCaseIdAttributes,
  TOOL_HEALTH_TARGET,
  type ScoringPlan,
} from './scoring-plan.js';
import type { ScoringPhase, TraceResult, TraceRun } from './trace-run.js';

/** Options of {@link scoreTrace}. */
export interface ScoreTraceOptions {
  /** @defaultValue 'all' */
  phase?: ScoringPhase;
  /** Where the run goes, in order: evaluation spans first, then metrics, files, stores. */
  sinks?: readonly ResultSink[];
  /** Scorer errors to reject with instead of reporting as `failed` (see `runScorers`). */
  propagate?: (error: unknown) => boolean | Error;
  /** Findings the caller made before scoring (a queue truncating a trace), kept in the run's diagnostics. */
  notes?: readonly Diagnostic[];
  /**
   * In the `deterministic` phase: no judge pass will follow, so the LLM scorers it leaves are
   * given `skipped` outcomes with this reason (in the scorers' order) instead of `deferred`.
   */
  judgeSkipped?: string;
  /** The clock, in Unix nanoseconds. */
  now?: () => bigint;
  /**
   * Where `tool_arguments` finds schemas for calls whose trace records none (learned from recent
   * traffic, or given in config); looked up once per normalized trace, before any scorer runs.
   */
  schemas?: SchemaLookup;
}

/**
 * The per-trace loop, the one used by the offline CLI, the memory driver and the BullMQ workers:
 * match the trace to its test cases or production rules ({@link matchTrace}, with the reason when
 * nothing matched), normalize it once per distinct alias map, run the scorers `phase` selects,
 * and hand the run to every sink in order. A target with no scorer in the phase gives no result,
 * except that the `deterministic` phase lists the LLM scorers it left out in `deferred`. A sink
 * that rejects (an export failure is `SS_EXPORT_FAILED`, `upstream`) rejects the call, so the
 * queue retries the trace; evaluation span ids are derived, so a retry rewrites, never duplicates.
 * Where `tool_arguments` runs, calls whose trace records no schema for their tool get one from
 * `options.schemas` (looked up once per normalized trace, before the scorers run). Pure apart
 * from what the sinks, the scorers and the schema lookup do.
 *
 * The trace is read once for what every step asks: its log events joined, its root and its spans
 * by id (`indexTrace`), its ids (test case, as each suite and the defaults read it, and session:
 * `readTraceIds`, one walk). Diagnostics (`diagnoseTrace`, what `inspect` shows) are made only for
 * a trace whose normalization found no tool call: the reason it is left unscored, or the one its
 * failing results give.
 */
export async function scoreTrace(
  traceId: string,
  traceSpans: readonly SpanDigest[],
  plan: ScoringPlan,
  options: ScoreTraceOptions = {},
): Promise<TraceRun> {
  // Values left unread by normalization's bounds, counted around each synchronous step only: other
  // traces are read while this one awaits its scorers.
  let boundHits = inputBoundHitCount();
  // GenAI log events (carried as spans by the queue) become events of the spans they name.
  const indexed = indexTrace(traceSpans);
  const { spans, root } = indexed;
  const now = options.now ?? unixNanoNow;
  const phase = options.phase ?? 'all';
  const ids = readTraceIds(indexed, plan);
  const match = matchTrace(traceId, root, ids, plan);
  let bounded = inputBoundHitCount() - boundHits;
  const session = ids.session;
  // One normalization per alias map; the test case id is the one matching found (the suite's own
  // id attributes for a test case, the default ones for a rule), never looked up again.
  const normalizations = new TraceNormalizations(traceId, indexed);

  const argumentsScorer = toolArgumentsScorer(match.targets);
  const checksArguments = argumentsScorer !== undefined;
  let lookedUp: WeakSet<NormalizedTrace> | undefined; // made only where schemas are looked up
  // Sized for every target, cut to those that gave a result after the loop: an empty array's
  // first push made room for 17 results (about 120 heap bytes more a trace).
  const results = new Array<TraceResult>(match.targets.length);
  let scored = 0;
  let diagnostics: Diagnostic[] | undefined;
  let noToolCalls = false;
  // Index loops: a for-of left an iterator result per item (this runs once a trace).
  for (let t = 0; t < match.targets.length; t++) {
    const target = match.targets[t]!;
    const { selected, deferred: left } = phaseScorers(target.scorers, phase);
    const deferred = options.judgeSkipped === undefined ? left : [];
    // A target of LLM scorers only has a result when no judge pass follows: each skipped.
    if (selected.length === 0 && left.length === 0) continue;
    const trace = normalizations.of(
      target.aliases,
      // Rules read the default id attributes.
      target.kind === 'test_case' ? target.testCaseId : ids.byDefaults?.id,
    );
    if (trace.toolSequence.length === 0)
      diagnostics ??= diagnoseTrace(trace, spans, planTestCaseIdAttributes(plan));
    // Tool health judges tool calls: a trace without any (a chat, a health check) is left unscored.
    if (target.suite === TOOL_HEALTH_TARGET && trace.toolSequence.length === 0) {
      noToolCalls = true;
      continue;
    }
    if (options.schemas && checksArguments && !lookedUp?.has(trace)) {
      (lookedUp ??= new WeakSet()).add(trace);
      const missing = toolsWithoutSchema(trace);
      if (missing.length)
        setFallbackSchemas(
          trace,
          await options.schemas(trace.serviceName, trace.serviceVersion, missing),
        );
    }
    const startUnixNano = now();
    // Awaited only when a scorer did not answer at once (see `runScorersAtOnce`).
    const scoring = runScorersAtOnce(
      trace,
      target.testCase,
      selected,
      target.aliases,
      options.propagate,
    );
    let outcomes = withDiagnosis(isThenable(scoring) ? await scoring : scoring, diagnostics);
    if (left.length > 0 && options.judgeSkipped !== undefined)
      outcomes = withSkippedJudge(outcomes, target.scorers, options.judgeSkipped);
    results[scored++] = {
      phase,
      trace,
      kind: target.kind,
      suite: target.suite,
      testCaseId: target.testCaseId,
      testCase: target.testCase,
      outcomes,
      deferred,
      startUnixNano,
      endUnixNano: now(),
    };
  }
  results.length = scored;
  // A turn of a session test case is scored with its session; read now as its session will read
  // it, so that its record shows its calls while the session waits (counted with the session).
  const turn =
    match.sessionTurn && normalizations.of(match.sessionTurn.aliases, match.sessionTurn.testCaseId);
  boundHits = inputBoundHitCount();
  const end = session && findSessionEnd(spans);
  bounded += normalizations.boundHits + inputBoundHitCount() - boundHits;
  if (bounded > 0) (diagnostics ??= []).push(inputBoundedDiagnostic(bounded));
  // A turn of a session test case stays one (its session is opened by it) whatever tool health
  // made of the turn itself.
  const sessionTurn = match.reasonCode === 'session_test_case';
  const skipped = noToolCalls && results.length === 0 && !sessionTurn;
  const blind = diagnostics?.find(d => d.code === 'no_tool_calls_recorded');
  const run: TraceRun = {
    traceId,
    phase,
    state:
      match.targets.length > 0 && !skipped && !(sessionTurn && results.length === 0)
        ? 'scored'
        : 'not_scored',
    reason: skipped
      ? `no tool calls recorded: tool health scores the traces that call tools${blind ? ` (${blind.message})` : ''}`
      : match.reasonCode === 'session_test_case' && match.reason
        ? session
          ? sessionTurnReason(match.reason, plan.sessionIdleMs, end)
          : `${match.reason}, but the trace carries no session id (${sessionKeysOf(plan)})`
        : match.reason,
    reasonCode: skipped ? 'no_tool_calls' : match.reasonCode,
    testCaseId: match.testCaseId,
    testCaseIdAttribute: match.testCaseIdAttribute,
    serviceName: (root ?? spans[0])?.serviceName ?? '',
    serviceVersion: (root ?? spans[0])?.serviceVersion ?? '',
    deploymentEnvironment: (root ?? spans[0])?.deploymentEnvironment ?? '',
    diagnostics: options.notes?.length
      ? [...options.notes, ...(diagnostics ?? [])]
      : diagnostics
        ? [...diagnostics]
        : [],
    results,
  };
  // The optional fields in the order the spreads that set them had (a record's key order), each
  // assigned: spreads of small objects into the literal cost more than the record itself.
  if (checksArguments) run.argumentsChecked = true;
  if (session) {
    run.sessionId = session.id;
    run.sessionIdAttribute = session.attribute;
    run.endsSession = end !== undefined;
    if (plan.toolHealth?.sessions?.sampled(session.id)) run.conversationHealth = true;
  }
  if (turn) run.turnTrace = turn;
  // Each call's facts (assessment, repeats), once, as this pass checked them: every sink reads these.
  const assertFormats = (argumentsScorer?.options as { assertFormats?: boolean } | undefined)
    ?.assertFormats;
  recordRunCalls(run, { assertFormats: assertFormats === true });
  const sinks = options.sinks ?? [];
  for (let s = 0; s < sinks.length; s++) {
    // Awaited only when the sink returns a promise (a sink that wrote at once returns nothing).
    const written = sinks[s]!.write(run);
    if (isThenable(written)) await written;
  }
  return run;
}

/** The first `tool_arguments` the run's targets score (its options: whether it asserts formats). */
function toolArgumentsScorer(
  targets: ReturnType<typeof matchTrace>['targets'],
): ResolvedScorer | undefined {
  for (let t = 0; t < targets.length; t++) {
    const scorers = targets[t]!.scorers;
    for (let s = 0; s < scorers.length; s++)
      if (scorers[s]!.scorer.name === toolArguments.name) return scorers[s];
  }
  return undefined;
}

/**
 * A failing result of a trace whose instrumentation recorded no tool call says so in its reason:
 * "missing get_weather" alone sends the user looking for a bug in the agent.
 */
function withDiagnosis(
  outcomes: ScorerOutcome[],
  diagnostics: readonly Diagnostic[] | undefined,
): ScorerOutcome[] {
  const blind = diagnostics?.find(d => d.code === 'no_tool_calls_recorded');
  if (!blind) return outcomes;
  return outcomes.map(o =>
    o.result.status === 'scored' && o.result.label === 'fail'
      ? { ...o, result: { ...o.result, reason: `${o.result.reason}; ${blind.message}` } }
      : o,
  );
}

/**
 * A deterministic pass's outcomes with its target's LLM scorers given `skipped` outcomes (`reason`:
 * no judge pass follows), every outcome in the scorers' order.
 */
function withSkippedJudge(
  outcomes: readonly ScorerOutcome[],
  scorers: readonly ResolvedScorer[],
  reason: string,
): ScorerOutcome[] {
  let next = 0;
  return scorers.map(s =>
    s.scorer.kind === 'llm' ? skippedOutcome(s, reason) : outcomes[next++]!,
  );
}

/** The attributes a session id is read from, for a reason that says none was found. */
function sessionKeysOf(plan: ScoringPlan): string {
  const keys = planSessionIdAttributes(plan);
  return keys ? keys.join(', ') : 'sessions are off';
}

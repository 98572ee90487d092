import { expectedToolsOf } from '../score/expected-tools.js';
import type { TraceRun } from '../score/trace-run.js';
import type { ToolCall } from '../normalize/tool-call.js';
import { agentsInOrder } from '../normalize/attribute-agents.js';
import { failingAgents } from '../score/failing-agents.js';
import { runCalls } from '../score/run-calls.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import { runRecordKey } from './run-record-key.js';
import type { ToolCallAssessment } from '../normalize/assess-tool-calls.js';
import {
  MAX_AGENTS_PER_RESULT,
  MAX_CONTENT_CHARS,
  MAX_TOOL_CALLS_PER_RUN,
  type ExportState,
  type RunRecord,
  type StoredResult,
  type StoredToolCall,
} from './stored-result.js';

/**
 * The results of one pass of the per-trace loop, as stored (without ids: the store assigns them).
 * Runs without outcomes (not scored, or a deterministic pass that deferred everything) give none.
 */
export function toStoredResults(run: TraceRun): Array<Omit<StoredResult, 'id'>> {
  const out: Array<Omit<StoredResult, 'id'>> = [];
  for (const r of run.results) {
    if (r.outcomes.length === 0) continue;
    const timeUnixMs = Number(r.endUnixNano / 1_000_000n);
    const expected = expectedToolsOf(r.testCase) ?? null;
    const toolSequence = r.trace.toolSequence.map(c => c.name);
    const agents = agentsInOrder(r.trace.agents).slice(0, MAX_AGENTS_PER_RESULT);
    for (const o of r.outcomes) {
      const result = o.result;
      const usage =
        result.status === 'scored'
          ? (result.details.usage as { costUsd?: unknown } | undefined)
          : undefined;
      out.push({
        timeUnixMs,
        traceId: run.traceId,
        targetKind: r.kind,
        suite: r.suite,
        testCaseId: r.testCaseId,
        scorer: o.scorer,
        scorerKind: o.kind,
        scorerVersion: o.version ?? '',
        phase: r.phase,
        status: result.status,
        score: result.status === 'scored' ? result.score : null,
        label: result.status === 'scored' ? result.label : null,
        reason: result.status === 'failed' ? result.error : result.reason,
        expectedTools: expected,
        toolSequence,
        toolsUsed: r.trace.toolsUsed,
        serviceName: r.trace.serviceName,
        serviceVersion: r.trace.serviceVersion || null,
        deploymentEnvironment: r.trace.deploymentEnvironment || null,
        agentName: r.trace.agentName ?? null,
        ...(agents.length && {
          agents,
          failingAgents: failingAgents(result).slice(0, MAX_AGENTS_PER_RESULT),
        }),
        judgeCostUsd: typeof usage?.costUsd === 'number' ? usage.costUsd : null,
        ...(run.session && { sessionId: run.session.id }),
        ...(run.session && run.session.part > 1 && { sessionPart: run.session.part }),
        ...(result.status === 'scored' &&
          typeof result.details.failingTurn === 'number' && {
            failingTurn: result.details.failingTurn,
          }),
      });
    }
  }
  return out;
}

/** How a store writes one pass: the export state its results start in, and what it keeps. */
export interface RunWrite {
  /** `pending` when evaluation spans are exported, `disabled` when not. */
  exportState: Extract<ExportState, 'pending' | 'disabled'>;
  /** Keep tool-call arguments and results (`results.storeContent`). */
  storeContent: boolean;
}

/** True when the pass has results, and so evaluation spans to export. */
export function hasOutcomes(run: TraceRun): boolean {
  return run.results.some(r => r.outcomes.length > 0);
}

/**
 * The run-record fields one pass sets (the store merges them into what it has): its state and
 * reason, what it matched, which LLM scorers still wait for the judge pass, and the tool calls it
 * scored (without arguments and results unless `storeContent`). A judge pass clears what it ran
 * from `awaitingJudge`; a skipped result for an exhausted budget shows in the reason. The export
 * state is the store's to set (see `ResultsStore.write`).
 */
export function runRecordPatch(
  run: TraceRun,
  nowUnixMs: number,
  storeContent: boolean,
): Omit<RunRecord, 'results' | 'receivedAtUnixMs' | 'export'> {
  const awaiting = run.results.flatMap(r => r.deferred);
  const budget = run.results.flatMap(r =>
    r.outcomes.filter(o => o.result.status === 'skipped' && /budget/i.test(o.result.reason)),
  );
  let reason = run.reason ?? null;
  if (run.state === 'scored' && budget.length > 0)
    reason = `${budget.length} LLM result(s) skipped: judge budget exhausted`;
  else if (run.state === 'scored' && awaiting.length > 0)
    reason = `waiting for the judge: ${[...new Set(awaiting)].join(', ')}`;
  // A turn of a session test case shows its route as it shows its calls (see `turnTrace`).
  const routed = run.results[0]?.trace ?? run.turnTrace;
  return {
    traceId: runRecordKey(run),
    state: run.state,
    reason,
    testCaseId: run.testCaseId ?? null,
    testCaseIdAttribute: run.testCaseIdAttribute ?? null,
    serviceName: run.serviceName,
    serviceVersion: run.serviceVersion || null,
    deploymentEnvironment: run.deploymentEnvironment || null,
    diagnostics: run.diagnostics,
    matched: run.results.map(r =>
      r.kind === 'rule' ? r.testCaseId : `${r.suite} / ${r.testCaseId}`,
    ),
    awaitingJudge: run.phase === 'llm' ? [] : [...new Set(awaiting)],
    updatedAtUnixMs: nowUnixMs,
    toolCalls: storedToolCalls(run, storeContent),
    contentKept: storeContent,
    ...(run.session && {
      session: {
        id: run.session.id,
        part: run.session.part,
        traceIds: run.session.traceIds,
        cut: run.session.cut?.code ?? null,
        cutReason: run.session.cut?.reason ?? null,
        continues: run.session.continues ?? null,
      },
    }),
    ...(routed?.agents.length && {
      agents: routed.agents.slice(0, MAX_TOOL_CALLS_PER_RUN).map(t => ({
        agent: t.agent,
        handoff: t.handoff?.rawName ?? null,
      })),
    }),
  };
}

/** The run's calls as its record keeps them, with what `tool_arguments` found where it ran. */
function storedToolCalls(run: TraceRun, storeContent: boolean): StoredToolCall[] {
  // What the pass found of each call, worked out once (`runCalls`): the same facts the counters
  // read, so the record and the counts never disagree.
  const calls = runCalls(run);
  // A turn of a session test case: its calls as read, checked and counted with its session.
  if (!calls)
    return (run.turnTrace?.toolSequence ?? [])
      .slice(0, MAX_TOOL_CALLS_PER_RUN)
      .map(c => storedToolCall(c, storeContent, undefined, false));
  const { trace, assessment: assessed } = calls;
  // What the store counted of each call (the judge pass counts none), so that a pass replacing
  // this one can take the counts back (see `replacedIncrements`).
  const facts = toolCallFacts(run);
  return trace.toolSequence
    .slice(0, MAX_TOOL_CALLS_PER_RUN)
    .map((c, i) => storedToolCall(c, storeContent, assessed?.[i], facts[i]?.repeated === true));
}

function storedToolCall(
  call: ToolCall,
  storeContent: boolean,
  assessed: ToolCallAssessment | undefined,
  repeated: boolean,
): StoredToolCall {
  // Field by field rather than spreads of conditional objects: a call a pass, each spread was an
  // object more, and the fields keep the order the API shows them in.
  const out: StoredToolCall = {
    name: call.name,
    rawName: call.rawName,
    source: call.source,
    status: call.status,
    outcome: call.outcome,
    error: call.error ?? null,
    spanId: call.spanId,
    convention: call.convention,
  };
  if (call.agent !== undefined) out.agent = call.agent;
  if (assessed) {
    out.argumentProblems = assessed.argumentProblems;
    out.offered = assessed.offered;
    if (assessed.schemaSource) out.schemaSource = assessed.schemaSource;
  }
  if (call.durationMs !== undefined) out.durationMs = Math.round(call.durationMs * 1000) / 1000;
  if (repeated) out.repeated = true;
  if (call.turn !== undefined) out.turn = call.turn;
  if (!storeContent) return out;
  const args = contentText(call.arguments);
  const result = contentText(call.result);
  if (args !== undefined) out.arguments = args;
  if (result !== undefined) out.result = result;
  return out;
}

/** A recorded value as JSON text (a string as it was), cut at {@link MAX_CONTENT_CHARS}. */
function contentText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  } catch {
    // A BigInt, or a cycle: neither comes from a parsed trace, but say what it was.
    text = typeof value === 'bigint' ? value.toString() : '[unserializable]';
  }
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…` : text;
}

import { expectedToolsOf } from '../score/expected-tools.js';
import type { TraceRun } from '../score/trace-run.js';
import type { ToolCall } from '../normalize/tool-call.js';
import { agentsInOrder } from '../normalize/attribute-agents.js';
import { failingAgents, type FailingAgentsRest } from '../score/failing-agents.js';
import { outcomeCount } from '../score/outcome-count.js';
import { runCalls } from '../score/run-calls.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import { cutText } from '../ingest/cut-text.js';
import { boundedList, boundedText } from './result-bounds.js';
import { runRecordKey } from './run-record-key.js';
import { jsonFitsWithin } from './json-fits-within.js';
import { sourceTextFits } from './source-text-fits.js';
import type { ToolCallAssessment } from '../normalize/assess-tool-calls.js';
import {
  MAX_AGENTS_PER_RESULT,
  MAX_CONTENT_CHARS,
  MAX_TOOL_CALLS_PER_RUN,
  type ExportState,
  type RunRecord,
  type StoredResult,
  type StoredToolCall,
  type WrittenToolCall,
} from './stored-result.js';

/**
 * A result as a pass writes it: a {@link StoredResult} whose `id` the store sets where it keeps it
 * (`undefined` till then, which JSON leaves out), so that its JSON has it first without a copy.
 */
export type WrittenResult = Omit<StoredResult, 'id'> & { id: string | undefined };

/**
 * The results of one pass of the per-trace loop, as stored (without ids: the store assigns them).
 * Runs without outcomes (not scored, or a deterministic pass that deferred everything) give none.
 */
export function toStoredResults(run: TraceRun): WrittenResult[] {
  const out = new Array<WrittenResult>(outcomeCount(run));
  let n = 0;
  for (const r of run.results) {
    if (r.outcomes.length === 0) continue;
    const timeUnixMs = Number(r.endUnixNano / 1_000_000n);
    // The lists the trace's results share, each within RESULT_BOUNDS.
    const cut = LIST_CUT;
    cut.length = 0;
    const expectedTools = expectedToolsOf(r.testCase);
    const expected = expectedTools ? boundedList('expectedTools', expectedTools, cut) : null;
    const toolSequence = boundedList('toolSequence', namesOf(r.trace.toolSequence), cut);
    const toolsUsed = boundedList('toolsUsed', r.trace.toolsUsed, cut);
    const agents = agentsInOrder(r.trace.agents);
    if (agents.length > MAX_AGENTS_PER_RESULT) agents.length = MAX_AGENTS_PER_RESULT;
    for (const o of r.outcomes)
      out[n++] = new PassResult(run, r, o, timeUnixMs, expected, toolSequence, toolsUsed, agents);
  }
  return out;
}

/**
 * What RESULT_BOUNDS cut of the trace's lists, and of the result being written's own reason and
 * failing agents (`REASON_CUT`), one at a time (results are written synchronously), copied into
 * the result when any.
 */
const LIST_CUT: string[] = [];
const REASON_CUT: string[] = [];
/** How many agents the result being written leaves out of its failing agents. */
const BLAMED_REST: FailingAgentsRest = { more: 0 };

/**
 * A result as {@link toStoredResults} writes it: a class, so that V8 sizes its instances for the
 * fields a result may have (slack tracking) and the optional ones, assigned in the constructor,
 * land in the object itself; spreads of conditional objects into a literal were an object more
 * each, and left the result (over 16 fields) in dictionary mode. The fields are set in the order
 * the API shows them, and absent ones are absent (not `undefined`), but the `id` the store sets.
 */
class PassResult implements WrittenResult {
  id: string | undefined;
  timeUnixMs: number;
  traceId: string;
  targetKind: StoredResult['targetKind'];
  suite: string;
  testCaseId: string;
  scorer: string;
  scorerKind: StoredResult['scorerKind'];
  scorerVersion: string;
  phase: StoredResult['phase'];
  status: StoredResult['status'];
  score: number | null;
  label: StoredResult['label'];
  reason: string;
  expectedTools: string[] | null;
  toolSequence: string[];
  toolsUsed: string[];
  serviceName: string;
  serviceVersion: string | null;
  deploymentEnvironment: string | null;
  agentName: string | null;
  declare agents?: string[];
  declare failingAgents?: string[];
  declare judgeCostUsd: number | null;
  declare sessionId?: string;
  declare sessionPart?: number;
  declare failingTurn?: number;
  declare cut?: string[];

  constructor(
    run: TraceRun,
    r: TraceRun['results'][number],
    o: TraceRun['results'][number]['outcomes'][number],
    timeUnixMs: number,
    expected: string[] | null,
    toolSequence: string[],
    toolsUsed: string[],
    agents: string[],
  ) {
    const result = o.result;
    this.timeUnixMs = timeUnixMs;
    this.traceId = run.traceId;
    this.targetKind = r.kind;
    this.suite = r.suite;
    this.testCaseId = r.testCaseId;
    this.scorer = o.scorer;
    this.scorerKind = o.kind;
    this.scorerVersion = o.version ?? '';
    this.phase = r.phase;
    this.status = result.status;
    this.score = result.status === 'scored' ? result.score : null;
    this.label = result.status === 'scored' ? result.label : null;
    const reasonCut = REASON_CUT;
    reasonCut.length = 0;
    this.reason = boundedText(
      'reason',
      result.status === 'failed' ? result.error : result.reason,
      reasonCut,
    );
    this.expectedTools = expected;
    this.toolSequence = toolSequence;
    this.toolsUsed = toolsUsed;
    this.serviceName = r.trace.serviceName;
    this.serviceVersion = r.trace.serviceVersion || null;
    this.deploymentEnvironment = r.trace.deploymentEnvironment || null;
    this.agentName = r.trace.agentName ?? null;
    if (agents.length) {
      this.agents = agents;
      const failing = failingAgents(result, BLAMED_REST);
      const blamed = failing.length + BLAMED_REST.more;
      if (blamed > MAX_AGENTS_PER_RESULT) {
        failing.length = Math.min(failing.length, MAX_AGENTS_PER_RESULT);
        reasonCut.push(`failingAgents: ${failing.length} of ${blamed} items`);
      }
      this.failingAgents = failing;
    }
    const usage =
      result.status === 'scored'
        ? (result.details.usage as { costUsd?: unknown } | undefined)
        : undefined;
    this.judgeCostUsd = typeof usage?.costUsd === 'number' ? usage.costUsd : null;
    if (run.session) {
      this.sessionId = run.session.id;
      if (run.session.part > 1) this.sessionPart = run.session.part;
    }
    if (result.status === 'scored' && typeof result.details.failingTurn === 'number')
      this.failingTurn = result.details.failingTurn;
    if (LIST_CUT.length || reasonCut.length) this.cut = [...LIST_CUT, ...reasonCut];
  }
}

/** The calls' names, in order, in an array sized once. */
function namesOf(calls: readonly ToolCall[]): string[] {
  const names = new Array<string>(calls.length);
  for (let i = 0; i < calls.length; i++) names[i] = calls[i]!.name;
  return names;
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

/** The run-record fields one pass sets (see {@link runRecordPatch}). */
export type RecordPatch = Omit<RunRecord, 'results' | 'receivedAtUnixMs' | 'export'>;

/** A {@link RecordPatch} whose calls' content may be kept as values (see {@link WrittenToolCall}). */
export type WrittenRecordPatch = Omit<RecordPatch, 'toolCalls'> & { toolCalls: WrittenToolCall[] };

/**
 * The run-record fields one pass sets (the store merges them into what it has): its state and
 * reason, what it matched, which LLM scorers still wait for the judge pass, and the tool calls it
 * scored (without arguments and results unless `storeContent`). A judge pass clears what it ran
 * from `awaitingJudge`; a skipped result for an exhausted budget shows in the reason. The export
 * state is the store's to set (see `ResultsStore.write`). With `'values'` (a store that writes the
 * record with `compactRecordLine` and reads it with `decodeCalls`), a call's arguments or result
 * that is an object or array whose JSON is certainly within {@link MAX_CONTENT_CHARS} is kept as
 * that value, not made into text the record's JSON would escape again (see {@link WrittenToolCall}).
 */
export function runRecordPatch(
  run: TraceRun,
  nowUnixMs: number,
  storeContent: boolean,
): RecordPatch;
export function runRecordPatch(
  run: TraceRun,
  nowUnixMs: number,
  storeContent: boolean,
  content: 'values',
): WrittenRecordPatch;
export function runRecordPatch(
  run: TraceRun,
  nowUnixMs: number,
  storeContent: boolean,
  content: 'text' | 'values' = 'text',
): WrittenRecordPatch {
  // Loops over the results, not lists of lists flattened: most passes defer nothing and skip
  // nothing, and then nothing is built for either.
  let awaiting: string[] | undefined;
  let budget = 0;
  const matched = new Array<string>(run.results.length);
  for (let i = 0; i < run.results.length; i++) {
    const r = run.results[i]!;
    for (const name of r.deferred) if (!(awaiting ??= []).includes(name)) awaiting.push(name);
    for (const o of r.outcomes)
      if (o.result.status === 'skipped' && /budget/i.test(o.result.reason)) budget++;
    matched[i] = r.kind === 'rule' ? r.testCaseId : `${r.suite} / ${r.testCaseId}`;
  }
  let reason = run.reason ?? null;
  if (run.state === 'scored' && budget > 0)
    reason = `${budget} LLM result(s) skipped: judge budget exhausted`;
  else if (run.state === 'scored' && awaiting)
    reason = `waiting for the judge: ${awaiting.join(', ')}`;
  // A turn of a session test case shows its route as it shows its calls (see `turnTrace`).
  const routed = run.results[0]?.trace ?? run.turnTrace;
  // The optional fields assigned after the literal, in the order the API shows them.
  const patch: WrittenRecordPatch = {
    traceId: runRecordKey(run),
    state: run.state,
    reason,
    testCaseId: run.testCaseId ?? null,
    testCaseIdAttribute: run.testCaseIdAttribute ?? null,
    serviceName: run.serviceName,
    serviceVersion: run.serviceVersion || null,
    deploymentEnvironment: run.deploymentEnvironment || null,
    diagnostics: run.diagnostics,
    matched,
    awaitingJudge: run.phase === 'llm' || !awaiting ? [] : awaiting,
    updatedAtUnixMs: nowUnixMs,
    toolCalls: storedToolCalls(run, storeContent ? content : 'none'),
    contentKept: storeContent,
  };
  if (run.session)
    patch.session = {
      id: run.session.id,
      part: run.session.part,
      traceIds: run.session.traceIds,
      cut: run.session.cut?.code ?? null,
      cutReason: run.session.cut?.reason ?? null,
      continues: run.session.continues ?? null,
    };
  if (routed?.agents.length) {
    const n = Math.min(routed.agents.length, MAX_TOOL_CALLS_PER_RUN);
    const agents = new Array<{ agent: string; handoff: string | null }>(n);
    for (let i = 0; i < n; i++) {
      const t = routed.agents[i]!;
      agents[i] = { agent: t.agent, handoff: t.handoff?.rawName ?? null };
    }
    patch.agents = agents;
  }
  return patch;
}

/** The run's calls as its record keeps them, with what `tool_arguments` found where it ran. */
function storedToolCalls(run: TraceRun, content: KeptContent): WrittenToolCall[] {
  // What the pass found of each call, worked out once (`runCalls`): the same facts the counters
  // read, so the record and the counts never disagree.
  const calls = runCalls(run);
  // A turn of a session test case: its calls as read, checked and counted with its session.
  const sequence = calls ? calls.trace.toolSequence : (run.turnTrace?.toolSequence ?? []);
  const assessed = calls?.assessment;
  // What the store counted of each call (the judge pass counts none), so that a pass replacing
  // this one can take the counts back (see `replacedIncrements`).
  const facts = calls ? toolCallFacts(run) : undefined;
  const n = Math.min(sequence.length, MAX_TOOL_CALLS_PER_RUN);
  const out = new Array<WrittenToolCall>(n);
  for (let i = 0; i < n; i++)
    out[i] = new RecordedCall(sequence[i]!, content, assessed?.[i], facts?.[i]?.repeated === true);
  return out;
}

/** What a record keeps of a call's arguments and result: nothing, text, or values where it can. */
type KeptContent = 'none' | 'text' | 'values';

/**
 * A call as its record keeps it: a class, so that V8 sizes its instances for the fields a call
 * may have (slack tracking) and the optional ones, assigned in the constructor, land in the
 * object itself; a literal with fields added after it grew a property store twice a call. The
 * fields are set in the order the API shows them, and absent ones are absent (not `undefined`).
 */
class RecordedCall implements WrittenToolCall {
  name: string;
  rawName: string;
  source: StoredToolCall['source'];
  status: StoredToolCall['status'];
  outcome: StoredToolCall['outcome'];
  error: string | null;
  spanId: string;
  convention: string;
  declare agent?: string;
  declare argumentProblems?: string[] | null;
  declare offered?: boolean | null;
  declare schemaSource?: StoredToolCall['schemaSource'];
  declare durationMs?: number;
  declare repeated?: true;
  declare turn?: number;
  declare arguments?: string | object;
  declare result?: string | object;

  constructor(
    call: ToolCall,
    content: KeptContent,
    assessed: ToolCallAssessment | undefined,
    repeated: boolean,
  ) {
    this.name = call.name;
    this.rawName = call.rawName;
    this.source = call.source;
    this.status = call.status;
    this.outcome = call.outcome;
    // As the trace recorded it (a span's status message, an error result): cut as content is.
    this.error = call.error === undefined ? null : cutContent(call.error);
    this.spanId = call.spanId;
    this.convention = call.convention;
    if (call.agent !== undefined) this.agent = call.agent;
    if (assessed) {
      this.argumentProblems = assessed.argumentProblems;
      this.offered = assessed.offered;
      if (assessed.schemaSource) this.schemaSource = assessed.schemaSource;
    }
    if (call.durationMs !== undefined) this.durationMs = Math.round(call.durationMs * 1000) / 1000;
    if (repeated) this.repeated = true;
    if (call.turn !== undefined) this.turn = call.turn;
    if (content === 'none') return;
    const args = keptContent(call.arguments, content);
    const result = keptContent(call.result, content);
    if (args !== undefined) this.arguments = args;
    if (result !== undefined) this.result = result;
  }
}

/** A recorded value as kept (see {@link runRecordPatch}): its value, or its text. */
function keptContent(value: unknown, content: 'text' | 'values'): string | object | undefined {
  if (
    content === 'values' &&
    (sourceTextFits(value, MAX_CONTENT_CHARS) || jsonFitsWithin(value, MAX_CONTENT_CHARS))
  )
    return value as object;
  return contentText(value);
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
  return cutContent(text);
}

/**
 * `text` within {@link MAX_CONTENT_CHARS}, a longer one cut (never inside a surrogate pair) and
 * ending in `…`.
 */
function cutContent(text: string): string {
  return text.length > MAX_CONTENT_CHARS ? `${cutText(text, MAX_CONTENT_CHARS)}…` : text;
}

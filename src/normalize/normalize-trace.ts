import { readAttributes } from '../ingest/read-attributes.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { GEN_AI_TOOL_ATTRIBUTES } from '../semconv/attributes.js';
import { stringAttribute } from './attribute-values.js';
import { extractConversation, type Conversation } from './extract-conversation.js';
import { attributeAgents, type AgentTurn, type Handoff } from './attribute-agents.js';
import { extractIndexedToolCalls } from './extract-tool-calls.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES, findTestCaseId } from './find-test-case-id.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import { IndexedTrace, indexTrace } from './indexed-trace.js';
import { SpanIndex } from './span-index.js';
import type { ToolCall } from './tool-call.js';
import { toolsUsed } from './tools-used.js';
import type { SessionContinues, SessionCut } from './session-pass.js';

/** One trace, read: what scorers and reports work from. */
export interface NormalizedTrace {
  traceId: string;
  /** The root span: no parent, or a parent outside this trace's spans; the earliest if several. */
  root: SpanDigest | undefined;
  spans: readonly SpanDigest[];
  /** Every tool call, start-time order, repeats kept (the `tool_sequence`). */
  toolSequence: ToolCall[];
  /** Canonical, deduped, first-call order, spelled as first seen (the `tools_used`). */
  toolsUsed: string[];
  /** Control passed between agents, in order; never in `toolSequence` or `toolsUsed`. */
  handoffs: Handoff[];
  /**
   * The agents in the order they took control, each with the handoff that gave it control (the
   * route); empty when the trace has no agent spans.
   */
  agents: AgentTurn[];
  /** The test case id from the first matching attribute, if any. */
  testCaseId: string | undefined;
  /** What the agent was asked and answered; read from the spans on first access. */
  readonly conversation: Conversation;
  /** The root span's `service.name`, else the first span's, else `''`. */
  serviceName: string;
  /** The same span's `service.version` resource attribute, or `''`. */
  serviceVersion: string;
  /** The same span's `deployment.environment.name`, or `''`. */
  deploymentEnvironment: string;
  /** `gen_ai.agent.name` of the root span, else of the first span that has one. */
  readonly agentName: string | undefined;
  /** A session's trace (see `sessionTrace`): its id and turns; absent for one trace. */
  readonly session?: SessionOfTrace | undefined;
}

/** The turns a session's trace is made of, in start order. */
export interface SessionOfTrace {
  id: string;
  /** Which part of the session (1, or a later one for a continuation: see `SessionPass`). */
  part: number;
  turns: readonly SessionTurn[];
  /** The bound the session was scored as it stood at (traces, bytes, age, eviction), if one was. */
  cut?: SessionCut | undefined;
  /** For a continuation: why the part before it ended (its turns are not in this one). */
  continues?: SessionContinues | undefined;
}

/** One turn of a session: one trace. */
export interface SessionTurn {
  traceId: string;
  /** The root span's span id, when the trace has one (evaluation spans link to it). */
  rootSpanId: string | undefined;
  /** The test case id the trace carries, if any. */
  testCaseId: string | undefined;
  startUnixNano: bigint;
  /** Its calls in the session's `toolSequence`: `[firstCall, firstCall + calls)`. */
  firstCall: number;
  calls: number;
}

/** Options for {@link normalizeTrace}. */
export interface NormalizeOptions {
  aliases?: ReadonlyMap<string, string>;
  testCaseIdAttributes?: readonly string[];
  /** The test case id, when the caller already found it; `testCaseIdAttributes` is then not read. */
  testCaseId?: string | undefined;
  extractors?: readonly ToolCallExtractor[];
  /** The root span, when the caller already found it with `findRoot`. */
  root?: SpanDigest | undefined;
}

/**
 * Reads one trace's spans into a {@link NormalizedTrace}. Pure; spans may be in any order. GenAI
 * log events kept as carriers are joined to their spans first (`joinLogEvents`), unless the
 * caller passes `root`: it found the root among spans it has joined already, and they are not
 * scanned again.
 */
export function normalizeTrace(
  traceId: string,
  traceSpans: readonly SpanDigest[],
  options: NormalizeOptions = {},
): NormalizedTrace {
  const trace =
    'root' in options ? new IndexedTrace(traceSpans, options.root) : indexTrace(traceSpans);
  return normalizeIndexedTrace(traceId, trace, options);
}

/**
 * {@link normalizeTrace} of a trace the caller indexed once (`indexTrace`: `scoreTrace`,
 * `inspectTrace`, `scoreSession`): its joined spans, root and index are used as they are.
 */
export function normalizeIndexedTrace(
  traceId: string,
  trace: IndexedTrace,
  options: Omit<NormalizeOptions, 'root'> = {},
): NormalizedTrace {
  const { spans, root, byId } = trace;
  const { toolSequence, handoffs, agents } = attributeAgents(
    spans,
    extractIndexedToolCalls(spans, byId, options),
    byId,
  );
  return new Trace(
    traceId,
    root,
    spans,
    toolSequence,
    handoffs,
    agents,
    'testCaseId' in options
      ? options.testCaseId
      : findTestCaseId(
          spans,
          root,
          options.testCaseIdAttributes ?? DEFAULT_TEST_CASE_ID_ATTRIBUTES,
        ),
    byId,
  );
}

/**
 * The index of a trace's spans by id: the one its normalization used (built already, by then,
 * for its root), else a new one (a `NormalizedTrace` made some other way).
 */
export function spanIndexOf(trace: Pick<NormalizedTrace, 'spans'>): SpanIndex {
  return trace instanceof Trace ? trace.byId : new SpanIndex(trace.spans);
}

// A class, not an object literal with a getter: V8 builds literals with accessors the slow way,
// and this object is made once per trace on the hot path.
class Trace implements NormalizedTrace {
  readonly toolsUsed: string[];
  readonly serviceName: string;
  readonly serviceVersion: string;
  readonly deploymentEnvironment: string;
  #conversation: Conversation | undefined;
  #agentName: string | undefined | null = null;

  constructor(
    readonly traceId: string,
    readonly root: SpanDigest | undefined,
    readonly spans: readonly SpanDigest[],
    readonly toolSequence: ToolCall[],
    readonly handoffs: Handoff[],
    readonly agents: AgentTurn[],
    readonly testCaseId: string | undefined,
    /** Not on `NormalizedTrace`: {@link spanIndexOf} reads it. */
    readonly byId: SpanIndex,
  ) {
    this.toolsUsed = toolsUsed(toolSequence);
    const resourceOf = root ?? spans[0];
    this.serviceName = resourceOf?.serviceName ?? '';
    this.serviceVersion = resourceOf?.serviceVersion ?? '';
    this.deploymentEnvironment = resourceOf?.deploymentEnvironment ?? '';
  }

  /** Read on first access: only evaluation spans need it. */
  get agentName(): string | undefined {
    if (this.#agentName === null) {
      const key = GEN_AI_TOOL_ATTRIBUTES.agentName;
      let name = this.root && stringAttribute(readAttributes(this.root), key);
      for (let i = 0; name === undefined && i < this.spans.length; i++)
        name = stringAttribute(readAttributes(this.spans[i]!), key);
      this.#agentName = name;
    }
    return this.#agentName;
  }

  /** Read from the spans on first access: only graders and judges need it. */
  get conversation(): Conversation {
    this.#conversation ??= extractConversation(this.spans, this.root);
    return this.#conversation;
  }
}

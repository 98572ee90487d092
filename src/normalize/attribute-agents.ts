import type { SpanDigest } from '../ingest/span-digest.js';
import { agentSpanName, type SpanChildren } from './agent-span-name.js';
import { handoffTarget } from './handoff-target.js';
import type { Handoff } from './handoff.js';
import { HandoffsByTarget } from './handoffs-by-target.js';
import { isRecord, parseMaybeJson } from './attribute-values.js';
import { FewKeyMap } from './few-key-map.js';
import { cutName } from './input-bounds.js';
import { SpanIndex } from './span-index.js';
import type { ToolCall } from './tool-call.js';

export type { Handoff } from './handoff.js';

/** One agent's turn in a trace's route: an agent, and the handoff that gave it control. */
export interface AgentTurn {
  agent: string;
  startTimeUnixNano: bigint;
  /** How control reached it; `undefined` for the first agent, or a return without a handoff. */
  handoff: Handoff | undefined;
}

/** What {@link attributeAgents} gives a trace. */
export interface AgentAttribution {
  /** The tool calls, handoffs left out, each with its `agent`. */
  toolSequence: ToolCall[];
  handoffs: Handoff[];
  /** The agents in the order they took control (a return to an earlier agent is a new turn). */
  agents: AgentTurn[];
}

/**
 * Gives each tool call the agent that made it, the nearest enclosing agent span (see
 * `agentSpanName`), and takes the handoffs (see `handoffTarget`) out of the tool calls: a handoff
 * requested by the model and the span that ran it are one handoff. The route is the agent spans
 * in start order, each consecutive run of one agent a turn; an agent span that only encloses
 * other agents (the OpenAI Agents SDK's workflow span, a container) is not a turn of its own.
 * A trace without agent spans keeps its calls as they are, with no route. `index`: the spans' index,
 * when the caller has one (`indexTrace`). Pure.
 */
export function attributeAgents(
  spans: readonly SpanDigest[],
  calls: ToolCall[],
  index?: SpanIndex,
): AgentAttribution {
  const byId = index ?? new SpanIndex(spans);
  const agentBySpan = agentSpans(spans, byId);
  if (agentBySpan === undefined) return { toolSequence: calls, handoffs: NONE, agents: NONE };
  const names = new AgentNames(agentBySpan);
  // The calls but the handoffs: `calls` itself until a handoff is taken out (most traces).
  let toolSequence: ToolCall[] | undefined;
  // Made for the first handoff: most traces have none, and share an empty list.
  let handoffs: Handoff[] | undefined;
  const enclosing = enclosingAgentSpans(agentBySpan, byId);
  // Agent spans that made a call or a handoff themselves: asked only of those that enclose
  // another, so kept only when there are such (a trace of one agent span has none).
  const active = enclosing && new FewKeyMap<string, true>(agentBySpan.size);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    const owner = agentSpanOf(call.spanId, agentBySpan, byId);
    if (owner !== undefined) {
      call.agent = agentBySpan.get(owner);
      active?.set(owner, true);
    }
    const target = handoffTarget(call, names);
    const to = target === undefined ? undefined : cutName(target);
    if (to === undefined) {
      toolSequence?.push(call);
      continue;
    }
    toolSequence ??= calls.slice(0, i);
    const from = fromAgent(call) ?? call.agent;
    const last = handoffs?.at(-1);
    // The model's request and the span that ran it (or two conventions reporting one) are one.
    if (last && last.to === to && last.from === from && sameHandoff(last, call)) {
      last.callId ??= call.callId;
      if (call.source === 'executed') {
        last.source = 'executed';
        last.spanId = call.spanId;
      }
      continue;
    }
    (handoffs ??= []).push({
      from,
      to,
      callId: call.callId,
      rawName: call.rawName,
      spanId: call.spanId,
      startTimeUnixNano: call.startTimeUnixNano,
      source: call.source,
    });
  }
  const found = handoffs ?? NONE;
  return {
    toolSequence: toolSequence ?? calls,
    handoffs: found,
    agents: route(byId, agentBySpan, enclosing, active, found),
  };
}

/**
 * The agents' names, as `handoffTarget` asks: collected on the first question (most calls are
 * answered by their name's first letter, and most traces never ask).
 */
class AgentNames {
  #names: Set<string> | undefined;

  constructor(private readonly agentBySpan: ReadonlyMap<string, string>) {}

  has(name: string): boolean {
    return (this.#names ??= new Set(this.agentBySpan.values())).has(name);
  }
}

// The result of a trace without agent spans, shared (nothing writes to it): most traces.
const NONE: never[] = Object.freeze([]) as unknown as never[];

/**
 * The agents of a route, each once, at its first takeover: `triage → billing → triage` gives
 * `[triage, billing]`, the route `agent_routing` compares by default and `suite record` writes.
 */
export function agentsInOrder(turns: ReadonlyArray<{ agent: string }>): string[] {
  const out: string[] = [];
  // A set past a few agents: a route of thousands of turns (a trace's agent spans) and as many
  // agents would take their square in `includes`.
  let seen: Set<string> | undefined;
  for (let i = 0; i < turns.length; i++) {
    const agent = turns[i]!.agent;
    if (seen) {
      if (seen.has(agent)) continue;
      seen.add(agent);
    } else if (out.includes(agent)) continue;
    else if (out.length === FEW_AGENTS) seen = new Set([...out, agent]);
    out.push(agent);
  }
  return out;
}

/** Agents of a route looked up by a scan of those seen (most routes have one to three). */
const FEW_AGENTS = 16;

/**
 * Agent spans by span id, with the agent each stands for; `undefined` when there are none. Of a
 * span id sent twice, the first copy counts (`SpanIndex.isCounted`): `index`, the spans' index
 * when the caller has one, else made at the first agent span.
 */
export function agentSpans(
  spans: readonly SpanDigest[],
  index?: SpanIndex,
): Map<string, string> | undefined {
  let out: Map<string, string> | undefined;
  let byId = index;
  const children = new ChildNames(spans);
  // Index loops here and in `route`: they run once a trace, and a for-of left an iterator result
  // per item.
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!;
    const name = agentSpanName(span, children);
    if (name !== undefined && (byId ??= new SpanIndex(spans)).isCounted(span))
      (out ??= new Map()).set(span.spanId, cutName(name));
  }
  return out;
}

/**
 * The names of each span's children, built on the first question (a LangGraph node span's; most
 * traces never ask): one small object per trace instead of a closure, which every trace paid.
 */
class ChildNames implements SpanChildren {
  #byParent: Map<string, Set<string>> | undefined;

  constructor(private readonly spans: readonly SpanDigest[]) {}

  hasSameNamedChild(span: SpanDigest): boolean {
    let byParent = this.#byParent;
    if (!byParent) {
      byParent = this.#byParent = new Map();
      for (const c of this.spans) {
        let names = byParent.get(c.parentSpanId);
        if (!names) byParent.set(c.parentSpanId, (names = new Set()));
        names.add(c.name);
      }
    }
    return byParent.get(span.spanId)?.has(span.name) ?? false;
  }
}

/** The agent a handoff span says it came from (OpenInference: input `{"from_agent": …}`). */
function fromAgent(call: ToolCall): string | undefined {
  const args = parseMaybeJson(call.arguments);
  return isRecord(args) && typeof args.from_agent === 'string' ? args.from_agent : undefined;
}

function sameHandoff(handoff: Handoff, call: ToolCall): boolean {
  if (handoff.callId !== undefined && call.callId !== undefined)
    return handoff.callId === call.callId;
  return handoff.source !== call.source;
}

/**
 * The id of the nearest agent span enclosing span `spanId`, itself included (its agent:
 * `agentBySpan`); `undefined` when none is within 64 spans up. A function of its own, not a closure
 * over the trace's maps, which took about 100 bytes a trace.
 */
function agentSpanOf(
  spanId: string,
  agentBySpan: ReadonlyMap<string, string>,
  byId: SpanIndex,
): string | undefined {
  let id = spanId;
  for (let hops = 0; id !== '' && hops < 64; hops++) {
    if (agentBySpan.has(id)) return id;
    id = byId.get(id)?.parentSpanId ?? '';
  }
  return undefined;
}

/**
 * The agent spans that enclose another agent span (containers, unless they acted themselves);
 * `undefined` when none does, as in a trace of one agent span: made for the first one found.
 */
function enclosingAgentSpans(
  agentBySpan: ReadonlyMap<string, string>,
  byId: SpanIndex,
): FewKeyMap<string, true> | undefined {
  let enclosing: FewKeyMap<string, true> | undefined;
  for (const id of agentBySpan.keys()) {
    const parentId = byId.get(id)!.parentSpanId;
    const parent = parentId === '' ? undefined : agentSpanOf(parentId, agentBySpan, byId);
    if (parent !== undefined) (enclosing ??= new FewKeyMap(agentBySpan.size)).set(parent, true);
  }
  return enclosing;
}

/**
 * The route: the agent spans in start order, containers left out (in `enclosing`, not in
 * `active`), each consecutive run of one agent a turn, with the first handoff to that agent not
 * given to an earlier turn.
 */
function route(
  byId: SpanIndex,
  agentBySpan: ReadonlyMap<string, string>,
  enclosing: FewKeyMap<string, true> | undefined,
  active: FewKeyMap<string, true> | undefined,
  handoffs: readonly Handoff[],
): AgentTurn[] {
  // Both lists sized once to the most they hold, then cut to what they do: a push onto an empty
  // list reserved 17 slots, and a trace has one agent span or a few (about 250 bytes a trace).
  const turns = new Array<SpanDigest>(agentBySpan.size);
  let count = 0;
  for (const id of agentBySpan.keys())
    if (enclosing?.has(id) !== true || active?.has(id) === true) turns[count++] = byId.get(id)!;
  turns.length = count;
  turns.sort(byStart);
  const out = new Array<AgentTurn>(count);
  count = 0;
  // The handoffs not yet given to a turn: indexed only for a trace that has any.
  let unused: HandoffsByTarget | undefined;
  for (let i = 0; i < turns.length; i++) {
    const span = turns[i]!;
    const agent = agentBySpan.get(span.spanId)!;
    if (count > 0 && out[count - 1]!.agent === agent) continue;
    let handoff: Handoff | undefined;
    if (count > 0 && handoffs.length > 0)
      handoff = (unused ??= new HandoffsByTarget(handoffs)).take(agent);
    out[count++] = { agent, startTimeUnixNano: span.startTimeUnixNano, handoff };
  }
  out.length = count;
  return out;
}

function byStart(a: SpanDigest, b: SpanDigest): number {
  return a.startTimeUnixNano < b.startTimeUnixNano
    ? -1
    : a.startTimeUnixNano > b.startTimeUnixNano
      ? 1
      : 0;
}

/** True when more than one agent took control in the trace: calls are then told apart by agent. */
export function isTeam(trace: { readonly agents: ReadonlyArray<{ agent: string }> }): boolean {
  return agentsInOrder(trace.agents).length > 1;
}

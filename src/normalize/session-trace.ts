import type { Conversation } from './extract-conversation.js';
import type { NormalizedTrace, SessionOfTrace, SessionTurn } from './normalize-trace.js';
import type { SessionPass } from './session-pass.js';
import type { ToolCall } from './tool-call.js';
import { toolsUsed } from './tools-used.js';
import { traceStartOf } from './trace-root.js';

/**
 * The traces of one session (a conversation, one trace per turn) read as one trace, for the
 * scorers: the turns in start order (their root's start, else their first span's); the tool calls
 * of every turn in that order, each marked with its `turn`, so `tool_loops` and `tool_errors` work
 * across the session and `tool_trajectory` can score turn by turn; handoffs and the agents' route
 * joined; the conversation from the first user message to the last answer. Its trace id, root and
 * resource are the last turn's (evaluation spans go on that root, linked to every turn's); `pass`
 * says which part of the session it is and where it was cut (part 1, uncut, by default). Pure.
 */
export function sessionTrace(
  sessionId: string,
  traces: readonly NormalizedTrace[],
  pass: SessionPass = { part: 1 },
): NormalizedTrace {
  if (traces.length === 0) throw new Error(`session ${sessionId} has no traces`);
  const ordered = [...traces].sort((a, b) =>
    compareBigint(traceStartOf(a.spans, a.root), traceStartOf(b.spans, b.root)),
  );
  const toolSequence: ToolCall[] = [];
  const turns: SessionTurn[] = ordered.map((trace, turn) => {
    const firstCall = toolSequence.length;
    for (const call of trace.toolSequence) toolSequence.push({ ...call, turn });
    return {
      traceId: trace.traceId,
      rootSpanId: trace.root?.spanId,
      testCaseId: trace.testCaseId,
      startUnixNano: traceStartOf(trace.spans, trace.root),
      firstCall,
      calls: trace.toolSequence.length,
    };
  });
  const last = ordered.at(-1)!;
  const session: SessionOfTrace = {
    id: sessionId,
    part: pass.part,
    turns,
    ...(pass.cut && { cut: pass.cut }),
    ...(pass.continues && { continues: pass.continues }),
  };
  let conversation: Conversation | undefined;
  return {
    traceId: last.traceId,
    root: last.root,
    spans: ordered.flatMap(t => t.spans),
    toolSequence,
    toolsUsed: toolsUsed(toolSequence),
    handoffs: ordered.flatMap(t => t.handoffs),
    agents: ordered.flatMap(t => t.agents),
    testCaseId: ordered.find(t => t.testCaseId !== undefined)?.testCaseId,
    serviceName: last.serviceName,
    serviceVersion: last.serviceVersion,
    deploymentEnvironment: last.deploymentEnvironment,
    get agentName() {
      return ordered.map(t => t.agentName).find(name => name !== undefined);
    },
    get conversation() {
      conversation ??= joinConversations(ordered.map(t => t.conversation));
      return conversation;
    },
    session,
  };
}

/** The calls of one turn of a session's trace (all calls for a trace that is not a session's). */
export function callsOfTurn(trace: NormalizedTrace, turn: number): ToolCall[] {
  const t = trace.session?.turns[turn];
  return t ? trace.toolSequence.slice(t.firstCall, t.firstCall + t.calls) : [];
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function joinConversations(turns: readonly Conversation[]): Conversation {
  return {
    userInput: turns.find(c => c.userInput !== undefined)?.userInput,
    assistantMessages: turns.flatMap(c => c.assistantMessages),
    finalOutput: turns.at(-1)?.finalOutput,
  };
}

import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { normalizeTrace, type NormalizedTrace } from '../../src/normalize/normalize-trace.js';
import type { AttrInput, SpanInput } from './otlp-json-builder.js';
import { otlpRequest, spanId, traceId } from './otlp-json-builder.js';

/** A tool call for {@link agentTrace}: a name, or a name with arguments, result and status. */
export type CallInput =
  | string
  | {
      name: string;
      args?: unknown;
      /** The arguments attribute's text as sent (`args` is sent as `JSON.stringify` writes it). */
      argsText?: string;
      result?: unknown;
      error?: string;
    };

let next = 1000;

/**
 * A one-agent trace whose tool calls are OTel GenAI `execute_tool` spans, run through the real
 * decoder and normalizer. `answer` becomes the agent's final output and last assistant message.
 */
export function agentTrace(
  calls: CallInput[],
  options: {
    testCaseId?: string;
    user?: string;
    answer?: string;
    assistant?: string[];
    /** Tool definitions offered to the model (`gen_ai.tool.definitions` on a chat span first). */
    offered?: Array<{ name: string; parameters?: unknown }>;
    /** More attributes of the root span (a session id, …). */
    rootAttributes?: Record<string, AttrInput>;
    /** When the trace starts, in ms after the builder's epoch (turns of a session differ). */
    atMs?: number;
  } = {},
): NormalizedTrace {
  const n = next++;
  const t = traceId(n);
  const rootAttrs: Record<string, AttrInput> = {
    'gen_ai.operation.name': 'invoke_agent',
    ...options.rootAttributes,
  };
  if (options.testCaseId) rootAttrs['spanscore.test_case.id'] = options.testCaseId;
  if (options.user)
    rootAttrs['gen_ai.input.messages'] = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: options.user }] },
    ]);
  if (options.answer)
    rootAttrs['gen_ai.output.messages'] = JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content: options.answer }] },
    ]);
  const spans: SpanInput[] = [
    {
      traceId: t,
      spanId: spanId(n, 1),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 10_000,
      attributes: rootAttrs,
    },
  ];
  calls.forEach((c, i) => {
    const call = typeof c === 'string' ? { name: c } : c;
    const attributes: Record<string, AttrInput> = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': `call_${i}`,
    };
    if (call.args !== undefined)
      attributes['gen_ai.tool.call.arguments'] = JSON.stringify(call.args);
    if (call.argsText !== undefined) attributes['gen_ai.tool.call.arguments'] = call.argsText;
    if (call.result !== undefined)
      attributes['gen_ai.tool.call.result'] =
        typeof call.result === 'string' ? call.result : JSON.stringify(call.result);
    spans.push({
      traceId: t,
      spanId: spanId(n, i + 2),
      parentSpanId: spanId(n, 1),
      name: `execute_tool ${call.name}`,
      startMs: 10 + i * 10,
      endMs: 15 + i * 10,
      attributes,
      ...(call.error && { status: { code: 2, message: call.error } }),
    });
  });
  if (options.offered)
    spans.push({
      traceId: t,
      spanId: spanId(n, 400),
      parentSpanId: spanId(n, 1),
      name: 'chat m',
      startMs: 1,
      endMs: 2,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.tool.definitions': JSON.stringify(
          options.offered.map(o => ({ type: 'function', ...o })),
        ),
      },
    });
  (options.assistant ?? []).forEach((text, i) => {
    spans.push({
      traceId: t,
      spanId: spanId(n, 500 + i),
      parentSpanId: spanId(n, 1),
      name: 'chat m',
      startMs: 5 + i * 10,
      endMs: 6 + i * 10,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: text }] },
        ]),
      },
    });
  });
  const at = options.atMs ?? 0;
  const shifted = spans.map(sp => ({ ...sp, startMs: sp.startMs + at, endMs: sp.endMs + at }));
  return normalizeTrace(t, decodeOtlpJson(otlpRequest(shifted)).spans);
}

/** One agent's turn for {@link teamTrace}: its tool calls, then a handoff (`transfer_to_<to>`). */
export interface TeamTurn {
  agent: string;
  calls?: CallInput[];
  handoffTo?: string;
}

/**
 * A multi-agent trace, OTel GenAI style: under a root span, one `invoke_agent <name>` span per
 * turn (with `gen_ai.agent.name`), in order, each holding its `execute_tool` spans, a handoff
 * being an `execute_tool transfer_to_<agent>` span; run through the real decoder and normalizer.
 */
export function teamTrace(
  turns: TeamTurn[],
  options: { testCaseId?: string } = {},
): NormalizedTrace {
  const n = next++;
  const t = traceId(n);
  let s = 1;
  const root = spanId(n, s++);
  const spans: SpanInput[] = [
    {
      traceId: t,
      spanId: root,
      name: 'support-run',
      startMs: 0,
      endMs: 100_000,
      attributes: options.testCaseId ? { 'spanscore.test_case.id': options.testCaseId } : {},
    },
  ];
  let at = 1;
  turns.forEach(turn => {
    const agentSpan = spanId(n, s++);
    const start = at;
    const tool = (name: string, args?: unknown): void => {
      spans.push({
        traceId: t,
        spanId: spanId(n, s++),
        parentSpanId: agentSpan,
        name: `execute_tool ${name}`,
        startMs: at,
        endMs: at + 1,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          'gen_ai.tool.call.id': `call_${s}`,
          ...(args !== undefined && { 'gen_ai.tool.call.arguments': JSON.stringify(args) }),
        },
      });
      at += 2;
    };
    at += 1;
    for (const c of turn.calls ?? []) {
      if (typeof c === 'string') tool(c);
      else tool(c.name, c.args);
    }
    if (turn.handoffTo) tool(`transfer_to_${turn.handoffTo}`, {});
    spans.push({
      traceId: t,
      spanId: agentSpan,
      parentSpanId: root,
      name: `invoke_agent ${turn.agent}`,
      startMs: start,
      endMs: at,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': turn.agent },
    });
    at += 1;
  });
  return normalizeTrace(t, decodeOtlpJson(otlpRequest(spans)).spans);
}

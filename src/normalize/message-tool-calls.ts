import { isRecord, parseMaybeJson } from './attribute-values.js';
import type { ToolResultSeen } from './extractors/extractor.js';
import type { ExtractedCall } from './tool-call.js';
import { isAiSdkRefusal } from './tool-failure.js';

/**
 * Reads one tool-call entry in any of the message shapes agent frameworks record, or returns
 * `undefined` when the value is not a tool call:
 * - OTel GenAI part `{type:'tool_call'|'server_tool_call', id, name, arguments}`
 * - OpenAI `{id, type:'function', function:{name, arguments}}`
 * - Vercel AI SDK v5/v6 `{toolCallId, toolName, input}` and v4 `{toolCallId, toolName, args}`
 * - Anthropic `{type:'tool_use', id, name, input}`; Bedrock/Strands `{toolUse:{toolUseId, name, input}}`
 * - Gemini/ADK `{function_call|functionCall:{id, name, args}}`
 * - LangChain `{name, args, id, type:'tool_call'}`
 * - Genkit `{toolRequest:{name, ref, input}}`
 */
export function readToolCall(value: unknown): ExtractedCall | undefined {
  if (!isRecord(value)) return undefined;
  const type = value.type;
  if ((type === 'tool_call' || type === 'server_tool_call') && typeof value.name === 'string') {
    return call(value.name, value.id, value.arguments ?? value.args);
  }
  if (isRecord(value.function) && typeof value.function.name === 'string') {
    return call(value.function.name, value.id, value.function.arguments);
  }
  if (typeof value.toolName === 'string') {
    return call(value.toolName, value.toolCallId, value.input ?? value.args);
  }
  if (type === 'tool_use' && typeof value.name === 'string') {
    return call(value.name, value.id, value.input);
  }
  if (isRecord(value.toolUse) && typeof value.toolUse.name === 'string') {
    return call(value.toolUse.name, value.toolUse.toolUseId, value.toolUse.input);
  }
  const fc = value.function_call ?? value.functionCall;
  if (isRecord(fc) && typeof fc.name === 'string') return call(fc.name, fc.id, fc.args);
  const tr = value.toolRequest;
  if (isRecord(tr) && typeof tr.name === 'string') return call(tr.name, tr.ref, tr.input);
  return undefined;
}

/**
 * Reads a tool result entry (`tool_call_response` part, OpenAI `role:'tool'` message, Anthropic
 * `tool_result` block, Bedrock `toolResult`, Gemini `functionResponse`, Genkit `toolResponse`).
 */
export function readToolResult(value: unknown): ToolResultSeen | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'tool_call_response' && typeof value.id === 'string') {
    return {
      callId: value.id,
      result: parseMaybeJson(value.response ?? value.result),
      isError: false,
    };
  }
  if (value.type === 'tool-result' && typeof value.toolCallId === 'string') {
    // AI SDK v5+ wraps outputs as {type: 'json'|'text'|'error-json'|'error-text'|'content', value}.
    const output = value.output ?? value.result;
    if (isRecord(output) && typeof output.type === 'string' && 'value' in output) {
      const isError = output.type.startsWith('error');
      const error = isError ? errorText(output.value) : undefined;
      return {
        callId: value.toolCallId,
        result: isError ? undefined : parseMaybeJson(output.value),
        isError,
        // The SDK's own tool-error for an input it rejected or a tool it lacks: not run.
        ...(error !== undefined && { error, refused: isAiSdkRefusal(error) }),
      };
    }
    return {
      callId: value.toolCallId,
      result: parseMaybeJson(output),
      isError: value.isError === true,
    };
  }
  if (value.role === 'tool' && typeof (value.tool_call_id ?? value.id) === 'string') {
    return {
      callId: String(value.tool_call_id ?? value.id),
      result: parseMaybeJson(value.content),
      isError: false,
    };
  }
  if (value.type === 'tool_result' && typeof value.tool_use_id === 'string') {
    const result = anthropicResultContent(value.content);
    return {
      callId: value.tool_use_id,
      result,
      isError: value.is_error === true,
      ...(value.is_error === true && { error: errorText(result) }),
    };
  }
  if (isRecord(value.toolResult) && typeof value.toolResult.toolUseId === 'string') {
    const isError = value.toolResult.status === 'error';
    return {
      callId: value.toolResult.toolUseId,
      result: value.toolResult.content,
      isError,
      ...(isError && { error: errorText(value.toolResult.content) }),
    };
  }
  const fr = value.function_response ?? value.functionResponse;
  if (isRecord(fr) && typeof fr.id === 'string') {
    return { callId: fr.id, result: fr.response, isError: false };
  }
  const gr = value.toolResponse;
  if (isRecord(gr) && typeof gr.ref === 'string') {
    return { callId: gr.ref, result: gr.output, isError: false };
  }
  return undefined;
}

/** The text of a result marked as an error: a string as it is, text blocks joined, else JSON. */
function errorText(value: unknown): string {
  if (typeof value === 'string') return value || 'error';
  if (Array.isArray(value)) {
    const texts = value
      .map(b => (isRecord(b) && typeof b.text === 'string' ? b.text : undefined))
      .filter((t): t is string => t !== undefined);
    if (texts.length) return texts.join('\n');
  }
  return value === undefined ? 'error' : (JSON.stringify(value) ?? 'error');
}

// An Anthropic tool_result's content: a string, or blocks whose text parts hold the result.
function anthropicResultContent(content: unknown): unknown {
  if (!Array.isArray(content)) return parseMaybeJson(content);
  const texts = content.filter(
    (b): b is { type: 'text'; text: string } =>
      isRecord(b) && b.type === 'text' && typeof b.text === 'string',
  );
  return texts.length === content.length && texts.length === 1
    ? parseMaybeJson(texts[0]!.text)
    : content;
}

/**
 * Every tool call found in a message list or message, searched through the places messages keep
 * them (`parts`, `content`, `tool_calls`, `toolCalls`, `message`). Depth-limited; never throws.
 */
export function toolCallsIn(value: unknown, depth = 0): ExtractedCall[] {
  return collect(parseMaybeJson(value), depth, undefined, readToolCall) ?? [];
}

/**
 * {@link toolCallsIn} appended to the caller's list (a list of its own was copied into it), or to
 * a list made for the first call found when `out` is `undefined`: returns the list, `undefined`
 * when there was none and no call was found.
 */
export function appendToolCallsIn(
  value: unknown,
  out: ExtractedCall[] | undefined,
): ExtractedCall[] | undefined {
  return collect(parseMaybeJson(value), 0, out, readToolCall);
}

/**
 * The tool calls in a value already parsed, found as {@link appendToolCallsIn} finds them in a
 * value at `depth` of what it parsed (`collect`'s depth bound counts from there): for a reader
 * that parsed the text in pieces (`appendPartsToolCalls`).
 */
export function appendToolCallsAt(value: unknown, depth: number, out: ExtractedCall[]): void {
  collect(value, depth, out, readToolCall);
}

/** Every tool result found in a message list or message, searched like {@link toolCallsIn}. */
export function toolResultsIn(value: unknown): ToolResultSeen[] {
  const out: ToolResultSeen[] = [];
  appendToolResultsIn(value, out);
  return out;
}

/** {@link toolResultsIn} appended to the caller's list. */
export function appendToolResultsIn(value: unknown, out: ToolResultSeen[]): void {
  const first = out.length;
  const messages = parseMaybeJson(value);
  collect(messages, 0, out, readToolResult);
  if (Array.isArray(messages)) resultsByPosition(messages, out, first);
}

/**
 * Tool messages that name no call (OpenLIT records OpenAI's `role: tool` messages as
 * `{role: 'tool', parts: [{type: 'text', content}]}`, the `tool_call_id` dropped): the k-th such
 * message after an assistant message answers its k-th tool call, as the Chat Completions API
 * orders them. Calls already answered by id are skipped.
 */
function resultsByPosition(
  messages: readonly unknown[],
  out: ToolResultSeen[],
  first: number,
): void {
  const answered = new Set<string>();
  for (let i = first; i < out.length; i++) answered.add(out[i]!.callId);
  let pending: string[] = [];
  // The next pending call, by index: `shift()` moves the whole array past about 16,000 items in
  // V8, and 60,000 tool messages (4 MiB of JSON) each shifting cost up to 16x their reading.
  let next = 0;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    if (message.role === 'assistant') {
      pending = toolCallsIn(message)
        .map(c => c.callId)
        .filter((id): id is string => typeof id === 'string' && !answered.has(id));
      next = 0;
    } else if (message.role === 'tool' && readToolResult(message) === undefined) {
      const text = onlyText(message.parts ?? message.content);
      const id = next < pending.length ? pending[next++] : undefined;
      if (id === undefined || text === undefined || toolResultsIn(message).length > 0) continue;
      out.push({ callId: id, result: parseMaybeJson(text), isError: false });
      answered.add(id);
    }
  }
}

// The text of content that is one text part (or a plain string), else undefined.
function onlyText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length !== 1) return undefined;
  const part: unknown = content[0];
  if (!isRecord(part) || part.type !== 'text') return undefined;
  const text = part.content ?? part.text;
  return typeof text === 'string' ? text : undefined;
}

const NESTED_KEYS = [
  'parts',
  'content',
  'tool_calls',
  'toolCalls',
  'message',
  'messages',
  'choices',
  'kwargs',
  'generations',
];

/**
 * Appends what `read` finds in `value` (a list, or a record whose {@link NESTED_KEYS} hold more)
 * to `out`, made for the first item found when not given: a list of one takes one slot, where a
 * push onto an empty list reserved 17. Returns the list, `undefined` when none was given or found.
 */
function collect<T>(
  value: unknown,
  depth: number,
  out: T[] | undefined,
  read: (v: unknown) => T | undefined,
): T[] | undefined {
  if (depth > 8) return out;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) out = collect(value[i], depth + 1, out, read);
    return out;
  }
  const found = read(value);
  if (found) {
    if (out) out.push(found);
    else out = [found];
    return out;
  }
  if (!isRecord(value)) return out;
  for (const key of NESTED_KEYS) {
    const nested = value[key];
    if (nested !== undefined) out = collect(parseMaybeJson(nested), depth + 1, out, read);
  }
  return out;
}

/**
 * The tool calls of the current turn, appended like {@link appendToolCallsIn}: the turn is the
 * messages after the last `user` message. Input messages replay the whole conversation, including
 * tool calls of earlier turns that belong to earlier traces. The turn is read in place, not copied.
 */
export function appendTurnToolCalls(
  messages: unknown,
  out: ExtractedCall[] | undefined,
): ExtractedCall[] | undefined {
  const list = parseMaybeJson(messages);
  if (!Array.isArray(list)) return out;
  // As collect reads a list: each message one level down.
  for (let i = turnStart(list); i < list.length; i++) out = collect(list[i], 1, out, readToolCall);
  return out;
}

// The index of the first message after the last `user` message that starts a turn.
function turnStart(list: readonly unknown[]): number {
  for (let i = list.length - 1; i >= 0; i--) {
    const m: unknown = list[i];
    if (isRecord(m) && m.role === 'user' && !hasToolResult(m)) return i + 1;
  }
  return 0;
}

// Anthropic/Bedrock put tool results inside `user` messages; those do not start a new turn.
function hasToolResult(message: Record<string, unknown>): boolean {
  return toolResultsIn(message.content ?? message.parts).length > 0;
}

function call(name: string, id: unknown, args: unknown): ExtractedCall {
  return {
    rawName: name,
    callId: typeof id === 'string' && id !== '' ? id : undefined,
    arguments: args === undefined ? undefined : parseMaybeJson(args),
  };
}

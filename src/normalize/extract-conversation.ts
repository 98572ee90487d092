import { readAttributes } from '../ingest/read-attributes.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import {
  indexedAttributes,
  isRecord,
  jsonAttribute,
  parseMaybeJson,
  stringAttribute,
} from './attribute-values.js';

/** What the agent was asked and what it answered, as far as the trace recorded it. */
export interface Conversation {
  /** The first user message of the run, if recorded. */
  userInput: string | undefined;
  /** Every assistant text the models produced, in time order; consecutive repeats collapsed. */
  assistantMessages: string[];
  /** The agent's final answer: the root span's output, else the last assistant message. */
  finalOutput: string | undefined;
}

/**
 * Reads the conversation from a trace's spans. Sources, in the conventions' own words:
 * GenAI `gen_ai.input.messages` / `gen_ai.output.messages`; Vercel `ai.prompt` / `ai.response.text`;
 * OpenInference `input.value` / `output.value` and `llm.{input,output}_messages`; Traceloop
 * `traceloop.entity.{input,output}` and legacy `gen_ai.{prompt,completion}.<i>`; our own
 * `spanscore.input` / `spanscore.output`.
 */
export function extractConversation(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
): Conversation {
  const ordered = [...spans].sort((a, b) =>
    a.endTimeUnixNano < b.endTimeUnixNano ? -1 : a.endTimeUnixNano > b.endTimeUnixNano ? 1 : 0,
  );
  const assistantMessages: string[] = [];
  let userInput = root ? rootInput(root) : undefined;
  for (const span of ordered) {
    userInput ??= firstUserText(span);
    for (const text of assistantTexts(span)) {
      if (assistantMessages.at(-1) !== text) assistantMessages.push(text);
    }
  }
  const finalOutput = (root ? rootOutput(root) : undefined) ?? assistantMessages.at(-1);
  return { userInput, assistantMessages, finalOutput };
}

/**
 * Whether `span` holds a part of the conversation {@link extractConversation} reads from any span
 * (a user message, an assistant text): what a session's held turn must keep of it.
 */
export function carriesConversation(span: SpanDigest): boolean {
  return firstUserText(span) !== undefined || assistantTexts(span).length > 0;
}

function rootInput(span: SpanDigest): string | undefined {
  const a = readAttributes(span);
  return (
    stringAttribute(a, SPANSCORE_ATTRIBUTES.input) ??
    textOf(jsonAttribute(a, 'ai.prompt')) ??
    stringAttribute(a, 'input.value') ??
    textOf(jsonAttribute(a, 'traceloop.entity.input')) ??
    firstUserText(span)
  );
}

function rootOutput(span: SpanDigest): string | undefined {
  const a = readAttributes(span);
  return (
    stringAttribute(a, SPANSCORE_ATTRIBUTES.output) ??
    stringAttribute(a, 'ai.response.text') ??
    lastAssistantText(a['gen_ai.output.messages']) ??
    textOf(jsonAttribute(a, 'output.value')) ??
    textOf(jsonAttribute(a, 'traceloop.entity.output'))
  );
}

function firstUserText(span: SpanDigest): string | undefined {
  const a = readAttributes(span);
  const messages = jsonAttribute(a, 'gen_ai.input.messages');
  if (Array.isArray(messages)) {
    const user: unknown = messages.find((m: unknown) => isRecord(m) && m.role === 'user');
    const text = textOf(user);
    if (text) return text;
  }
  for (const m of indexedAttributes(a, 'llm.input_messages')) {
    if (m['message.role'] === 'user' && typeof m['message.content'] === 'string')
      return m['message.content'];
  }
  for (const m of indexedAttributes(a, 'gen_ai.prompt')) {
    if (m.role === 'user' && typeof m.content === 'string') return m.content;
  }
  const prompt = jsonAttribute(a, 'ai.prompt.messages');
  if (Array.isArray(prompt)) return textOf(prompt.find(m => isRecord(m) && m.role === 'user'));
  return undefined;
}

function assistantTexts(span: SpanDigest): string[] {
  const a = readAttributes(span);
  const out: string[] = [];
  const genAi = lastAssistantText(a['gen_ai.output.messages']);
  if (genAi) out.push(genAi);
  const vercel = stringAttribute(a, 'ai.response.text');
  if (vercel && a['ai.operationId'] !== undefined) out.push(vercel);
  for (const m of indexedAttributes(a, 'llm.output_messages')) {
    const content = m['message.content'];
    if (typeof content === 'string' && content !== '') out.push(content);
  }
  for (const m of indexedAttributes(a, 'gen_ai.completion')) {
    if (
      (m.role === undefined || m.role === 'assistant') &&
      typeof m.content === 'string' &&
      m.content !== ''
    )
      out.push(m.content);
  }
  return out;
}

function lastAssistantText(messages: unknown): string | undefined {
  const list = parseMaybeJson(messages);
  if (!Array.isArray(list)) return undefined;
  for (let i = list.length - 1; i >= 0; i--) {
    const m: unknown = list[i];
    if (isRecord(m) && (m.role === 'assistant' || m.role === undefined)) {
      const text = textOf(m);
      if (text) return text;
    }
  }
  return undefined;
}

/** The text of a message, part list, prompt object or plain string. */
export function textOf(value: unknown, depth = 0): string | undefined {
  if (depth > 6 || value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Array.isArray(value)) {
    const texts = value.map(v => textOf(v, depth + 1)).filter((t): t is string => t !== undefined);
    return texts.length ? texts.join('\n') : undefined;
  }
  if (!isRecord(value)) return undefined;
  if (value.type === 'text' && typeof value.text === 'string') return value.text;
  if (value.type === 'text' && typeof value.content === 'string') return value.content;
  if (typeof value.type === 'string' && value.type !== 'text') return undefined;
  for (const key of ['content', 'parts', 'text', 'prompt', 'messages']) {
    const found = textOf(parseMaybeJson(value[key]), depth + 1);
    if (found) return found;
  }
  return undefined;
}

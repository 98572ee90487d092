import { isRecord } from './attribute-values.js';

/** A failure a tool call's result records, and whether the framework refused to run the call. */
export interface ResultFailure {
  error: string;
  refused: boolean;
}

/**
 * The failure a tool's result records, for producers that end a failed tool's span with its status
 * unset and put the failure in the result instead; `undefined` for any other result. Read, in
 * order:
 * - MCP's `CallToolResult` with `isError: true` (`{content: [{type: 'text', text}], isError}`), as
 *   the AI SDK's MCP client and most MCP servers return it, and Traceloop's MCP output
 *   `{result, is_error: true}`;
 * - a serialized LangChain / LangGraph `ToolMessage` with `status: "error"`;
 * - the AI SDK's tool output `{type: 'error-text' | 'error-json', value}` (a `tool-error` part);
 * - Mastra's validation result `{error: true, message}`;
 * - `{"error": "…"}` alone, what hand-written agent loops answer the model (the OpenAI cookbook's
 *   shape);
 * - a text result the AI SDK 7 wrote for a `tool-error` part: `AI_<Name>Error: …`.
 * Whether the framework refused the call (rather than ran it and saw it fail) is read from the
 * error text by {@link isRefusal}.
 */
export function failureInResult(result: unknown): ResultFailure | undefined {
  const error = failureText(result);
  return error === undefined ? undefined : { error, refused: isRefusal(error) };
}

function failureText(result: unknown): string | undefined {
  if (typeof result === 'string') return AI_SDK_ERROR.test(result) ? result : undefined;
  if (!isRecord(result)) return undefined;
  if (result.isError === true && Array.isArray(result.content)) return contentText(result.content);
  if (result.is_error === true) return textOf(result.result ?? result.content) ?? 'error';
  const kwargs = isRecord(result.kwargs) ? result.kwargs : undefined;
  if (kwargs && result.lc !== undefined && kwargs.status === 'error')
    return textOf(kwargs.content) ?? 'error';
  if (
    (result.type === 'error-text' || result.type === 'error-json') &&
    'value' in result &&
    Object.keys(result).length <= 3
  )
    return textOf(result.value) ?? 'error';
  if (result.error === true && typeof result.message === 'string') return result.message;
  const keys = Object.keys(result);
  if (keys.length === 1 && keys[0] === 'error' && typeof result.error === 'string')
    return result.error || 'error';
  return undefined;
}

/** The AI SDK's error classes as it prints them in a `tool-error` part's text. */
const AI_SDK_ERROR = /^AI_[A-Za-z]+Error: /;

// MCP content blocks' text, joined.
function contentText(content: readonly unknown[]): string {
  const texts = content
    .map(c => (isRecord(c) && typeof c.text === 'string' ? c.text : undefined))
    .filter((t): t is string => t !== undefined);
  return texts.join('\n') || 'error';
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Array.isArray(value)) return contentText(value);
  if (value === undefined || value === null) return undefined;
  return JSON.stringify(value);
}

/**
 * The texts producers give a call they did not run, each where that producer writes it: its
 * arguments failed the tool's schema, or no tool of the agent has its name.
 */
const REFUSALS: readonly RegExp[] = [
  // AI SDK: InvalidToolInputError, NoSuchToolError (and their `AI_…` class names in v7's parts).
  /\bInvalid input for tool\b/,
  /\bModel tried to call unavailable tool\b/,
  /\bAI_(?:InvalidToolInputError|NoSuchToolError|InvalidToolArgumentsError)\b/,
  // Mastra's createTool validation.
  /\bTool (?:input )?validation failed\b/,
  // MCP: the TypeScript server SDK's validation error; JSON-RPC "Invalid params" (-32602), which
  // servers answer for unknown tools too.
  /\bInput validation error\b/,
  /\bMCP error -32602\b/,
  // MCP servers ("Tool x not found") and the OpenAI Agents SDK ("Tool x not found in agent y").
  /\bTool \S+ not found\b/,
  // LangChain's ToolInputParsingException.
  /\bReceived tool input did not match expected schema\b/,
  // Hand-written agent loops.
  /^(?:unknown tool|invalid arguments)\b/i,
];

/** True when an error text says the framework refused the call rather than ran it (see above). */
export function isRefusal(error: string): boolean {
  return REFUSALS.some(pattern => pattern.test(error));
}

/**
 * The name a refusal text recorded on another span gives (the OpenAI Agents SDK fails its agent's
 * run with `ModelBehaviorError: Tool delete_booking not found in agent …`), or `undefined`.
 */
export function refusedToolName(error: string): string | undefined {
  return /\bTool (\S+) not found in agent\b/.exec(error)?.[1];
}

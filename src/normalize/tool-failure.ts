import { isRecord } from './attribute-values.js';
import { hasOwnKey } from './has-own-key.js';

/** A failure a tool call's result records, and whether its producer says it did not run the call. */
export interface ResultFailure {
  error: string;
  refused: boolean;
}

/**
 * The failure a tool's result records, for producers that put the failure in the result (often
 * with the span's status left unset, or set OK as Mastra does); `undefined` for any other result,
 * and for an empty error field (`{"error": ""}`, `{"error": null}`, `isError: false`). Read:
 * - MCP's `CallToolResult` with `isError: true` (`{content: [{type: 'text', text}], isError}`), as
 *   the AI SDK's MCP client and most MCP servers return it, and Traceloop's MCP output
 *   `{result, is_error: true}`;
 * - a serialized LangChain / LangGraph `ToolMessage` with `status: "error"`;
 * - the AI SDK's tool output `{type: 'error-text' | 'error-json', value}` (a `tool-error` part);
 * - Mastra's validation result `{error: true, message, validationErrors}`, or
 *   `{error: true, message}`;
 * - `{"error": "…"}` alone, what hand-written agent loops answer the model (the OpenAI cookbook's
 *   shape);
 * - a text result the AI SDK 7 wrote for a `tool-error` part: `AI_<Name>Error: …`;
 * - a text result that is an MCP SDK error, `MCP error <code>: …`, as an agent loop hands an
 *   MCP client's error to the model;
 * - the AI SDK's answer for a call the app denied (tool approval, see {@link isAiSdkDenial}):
 *   refused, with the error `execution denied: <reason>`.
 *
 * `refused` follows the one rule below: only a producer's own shape for a call
 * it did not run, never an error text a tool could have written. `ran` says a tool span of the
 * call exists (the AI SDK records none for a call it refused or the app denied).
 */
export function failureInResult(result: unknown, ran = false): ResultFailure | undefined {
  if (typeof result === 'string') {
    if (MCP_ERROR.test(result)) return { error: result, refused: isMcpRefusal(result) };
    const name = AI_SDK_ERROR.exec(result)?.[1];
    return name === undefined
      ? undefined
      : { error: result, refused: !ran && AI_SDK_REFUSAL_ERRORS.has(name) };
  }
  if (!isRecord(result)) return undefined;
  if (!ran && isAiSdkDenial(result)) return { error: denialText(result.reason), refused: true };
  if (result.isError === true && Array.isArray(result.content)) {
    const error = contentText(result.content);
    return { error, refused: isMcpRefusal(error) };
  }
  if (result.is_error === true) {
    const error = textOf(result.result ?? result.content) ?? 'error';
    return { error, refused: isMcpRefusal(error) };
  }
  const kwargs = isRecord(result.kwargs) ? result.kwargs : undefined;
  if (kwargs && result.lc !== undefined && kwargs.status === 'error')
    return {
      error: textOf(kwargs.content) ?? 'error',
      refused: isLangChainRefusal(kwargs.content),
    };
  if (
    (result.type === 'error-text' || result.type === 'error-json') &&
    'value' in result &&
    Object.keys(result).length <= 3
  ) {
    const error = textOf(result.value) ?? 'error';
    return { error, refused: !ran && isAiSdkRefusal(error) };
  }
  if (result.error === true && typeof result.message === 'string')
    return { error: result.message || 'error', refused: isMastraRefusal(result) };
  if (typeof result.error === 'string' && ownKeysUpTo(result, 2) === 1)
    return result.error.trim() === '' ? undefined : { error: result.error, refused: false };
  return undefined;
}

/**
 * The own enumerable keys of `value` (what `Object.keys` lists), counted up to `limit`: a
 * result's keys without the array `Object.keys` makes, on every tool result scored.
 */
function ownKeysUpTo(value: object, limit: number): number {
  let n = 0;
  for (const key in value) if (hasOwnKey(value, key) && ++n >= limit) break;
  return n;
}

/*
 * The one rule for `refused`: a call is refused only when its framework's own shape for "not run"
 * says so; an error text a tool or an agent loop could have written (`Invalid input`, `unknown
 * tool`, `{"error": "invalid arguments"}`) is a failure of the call (`error`), whatever it says.
 * The shapes, per producer (docs/frameworks.md names the same):
 * - the AI SDK: a call no tool span ran, answered with its tool-error for an input the tool's
 *   schema rejects (`InvalidToolInputError`, v4's `InvalidToolArgumentsError`) or an unknown tool
 *   (`NoSuchToolError`): the `error-text` part fed to the next step (v5, v6), the
 *   `AI_<Name>Error: …` text (v7), the error ending the run (v4, the extractor's `refusal`);
 * - Mastra: its input validation result on the tool span (below), or a `client_tool_call <tool>`
 *   span for a tool the agent lacks (the extractor's `refusal`);
 * - the OpenAI Agents SDK: a function span it failed over the input it rejected (the OpenInference
 *   extractor), and `ModelBehaviorError: Tool x not found in agent y` ending the run;
 * - LangChain and LangGraph: a `ToolMessage` with `status: "error"` from its `ToolNode` with its
 *   words for an input it rejected or a tool it lacks (below), read from the `tools` node's span;
 * - MCP: JSON-RPC `-32602`, invalid params, in an `isError` result, a span status or `error.type`.
 * A call the app refused is refused too, not failed: the AI SDK's tool approval (below) answers
 * the model for a call the app denied, which never ran.
 */

/**
 * True for the AI SDK's answer to the model for a call the app denied (a tool with
 * `needsApproval`, or v7's `toolApproval` policy, answered `approved: false`): a tool result no tool
 * span ran, whose output is `{type: 'execution-denied', reason?}` (v6's `ai.prompt.messages`, with
 * `providerOptions` for a provider-executed tool), or `{denied: true, reason?}` (v7 through
 * `@ai-sdk/otel`, the `tool_call_response` part's `response`). `reason` is the app's, optional.
 * Read as `refused`, the outcome of a call the framework did not run, never `error` (no tool
 * failed) or `ok` (nothing ran). The caller passes only results no tool span recorded: a tool
 * that ran and returned this shape returned its own output.
 */
export function isAiSdkDenial(result: Record<string, unknown>): boolean {
  const v6 = result.type === 'execution-denied';
  if (!v6 && result.denied !== true) return false;
  if (result.reason !== undefined && typeof result.reason !== 'string') return false;
  // No key but the shape's own: an output with more is a tool's, whatever it holds.
  for (const key in result)
    if (
      hasOwnKey(result, key) &&
      key !== 'reason' &&
      (v6 ? key !== 'type' && key !== 'providerOptions' : key !== 'denied')
    )
      return false;
  return true;
}

/** A denied call's error text: `execution denied`, and the app's reason after a colon. */
function denialText(reason: unknown): string {
  return typeof reason === 'string' && reason !== ''
    ? `execution denied: ${reason}`
    : 'execution denied';
}

/** An `McpError` as the MCP TypeScript SDK prints it: `MCP error <JSON-RPC code>: <message>`. */
const MCP_ERROR = /^MCP error -?\d{1,6}: /;

/** The AI SDK's error classes as it prints them in a `tool-error` part's text (v7). */
const AI_SDK_ERROR = /^AI_([A-Za-z]{1,64}Error): /;

/** The AI SDK's errors for a call it did not run: an input its schema rejects, an unknown tool. */
const AI_SDK_REFUSAL_ERRORS = new Set([
  'InvalidToolInputError',
  'InvalidToolArgumentsError',
  'NoSuchToolError',
]);

/**
 * The texts of the AI SDK's refusal errors, at the start of the text (v5/v6 `error-text` parts
 * carry the message alone; v7 prefixes the class name): `Invalid input for tool x: …`
 * (InvalidToolInputError), `Invalid arguments for tool x: …` (v4 InvalidToolArgumentsError),
 * `Model tried to call unavailable tool 'x'` (NoSuchToolError).
 */
const AI_SDK_REFUSAL_TEXT =
  /^(?:AI_(?:InvalidToolInputError|InvalidToolArgumentsError|NoSuchToolError): )?(?:Invalid (?:input|arguments) for tool [^\s:]{1,256}: |Model tried to call unavailable tool ')/;

/** True when a text is one of the AI SDK's refusal errors (see {@link AI_SDK_REFUSAL_TEXT}). */
export function isAiSdkRefusal(text: string): boolean {
  return AI_SDK_REFUSAL_TEXT.test(text);
}

/**
 * The tool an AI SDK refusal names (`Invalid arguments for tool x: …`,
 * `Invalid input for tool x: …`, `Model tried to call unavailable tool 'x'. …`), or `undefined`.
 */
export function aiSdkRefusedTool(text: string): string | undefined {
  const m = AI_SDK_REFUSED_TOOL.exec(text);
  return m?.[1] ?? m?.[2];
}

const AI_SDK_REFUSED_TOOL =
  /^(?:Invalid (?:input|arguments) for tool ([^\s:]{1,256}): |Model tried to call unavailable tool '([^']{1,256})')/;

/**
 * True for MCP's JSON-RPC "Invalid params" (-32602) as its TypeScript SDK prints an `McpError`
 * (`MCP error -32602: …`): what servers answer for arguments the tool's input schema rejects and
 * for a tool they do not have, before running anything.
 */
export function isMcpRefusal(text: string): boolean {
  return text.startsWith('MCP error -32602:');
}

/**
 * LangChain's words in a `ToolMessage` with `status: "error"` for a call its `ToolNode` did not run,
 * as the node writes them (`Error: <error>` and a plea to fix it): LangChain's
 * `ToolInputParsingException` (`Received tool input did not match expected schema`, before the
 * tool runs; `createAgent` wraps it as `Error invoking tool 'x' with kwargs …`), and a tool the
 * agent lacks (LangGraph's prebuilt `Tool "x" not found.`, `createAgent`'s
 * `x is not a valid tool, try one of […]`).
 */
export function isLangChainRefusal(content: unknown): boolean {
  return typeof content === 'string' && LANGCHAIN_REFUSAL.test(content);
}

const LANGCHAIN_REFUSAL =
  /^Error: (?:Received tool input did not match expected schema|Tool "[^"\n]{1,256}" not found\.|Error invoking tool '[^'\n]{1,256}' with kwargs |\S{1,256} is not a valid tool, try one of \[)/;

/**
 * Mastra's input validation result (`@mastra/core` `validateToolInput`):
 * `{error: true, message, validationErrors}` whose message starts `Tool input validation failed`.
 * Its output validation result has the same shape after the tool ran
 * (`Tool output validation failed`): an error.
 */
function isMastraRefusal(result: Record<string, unknown>): boolean {
  return (
    'validationErrors' in result &&
    typeof result.message === 'string' &&
    result.message.startsWith('Tool input validation failed')
  );
}

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
 * The tool the OpenAI Agents SDK refused when its run ended with
 * `ModelBehaviorError: Tool x not found in agent y` (the model named a tool the agent lacks), or
 * `undefined`.
 */
export function refusedToolName(error: string): string | undefined {
  return /\bModelBehaviorError: Tool (\S{1,256}) not found in agent\b/.exec(error)?.[1];
}

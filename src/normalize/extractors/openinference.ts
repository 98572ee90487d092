import { readAttributes } from '../../ingest/read-attributes.js';
import type { Attributes, AttributeValue, SpanDigest } from '../../ingest/span-digest.js';
import {
  indexedAttributes,
  isRecord,
  parseMaybeJson,
  stringAttribute,
} from '../attribute-values.js';
import { appendToolResultsIn, toolCallsIn } from '../message-tool-calls.js';
import type { ExtractedCall } from '../tool-call.js';
import { readToolDefinitions } from '../tool-definitions.js';
import { isLangChainRefusal, refusedToolName } from '../tool-failure.js';
import { spanOutcome, type ToolCallExtractor, type ToolResultSeen } from './extractor.js';

/**
 * OpenInference (Arize Phoenix; any OpenInference instrumentor): a span with
 * `openinference.span.kind=TOOL` is a tool call named by `tool.name` (else the span name; CrewAI
 * names spans `<tool>.run`), arguments in `input.value`, result in `output.value`. LLM spans
 * record requested calls as `llm.output_messages.<i>.message.tool_calls.<j>.tool_call.*` (with
 * LangChain, also in the serialized AIMessage of `output.value`, the only place with call ids),
 * and replay earlier ones in `llm.input_messages`, where `role=tool` messages carry the results
 * (Anthropic's `tool_result` blocks are read from the request body in `input.value`, since the
 * flattened `user` message keeps only the last block).
 * With LangChain a TOOL span's `output.value` is the serialized ToolMessage (call id, content,
 * status), and a one-argument tool's `input.value` is the bare value: the request's structured
 * arguments replace it when the two pair (`extractToolCalls`). The tools offered to an LLM span
 * are `llm.tools.<i>.tool.json_schema`, each a JSON string of the provider's definition (OpenAI's
 * `{type: 'function', function: {…}}`, Anthropic's `{name, input_schema}`).
 */
export const openInference: ToolCallExtractor = {
  id: 'openinference',
  executed(span) {
    const a = readAttributes(span);
    if (a['openinference.span.kind'] !== 'TOOL') return undefined;
    const rawName = stringAttribute(a, 'tool.name') ?? span.name.replace(/\.run$/, '');
    const output = parseMaybeJson(a['output.value']) ?? undefined;
    const message = langChainToolMessage(output);
    const outcome = spanOutcome(span);
    return {
      rawName,
      callId:
        stringAttribute(a, 'tool.id') ??
        stringAttribute(a, 'tool_call.id') ??
        (typeof message?.tool_call_id === 'string' ? message.tool_call_id : undefined),
      arguments: parseMaybeJson(a['input.value']) ?? undefined,
      result: message ? parseMaybeJson(message.content) : output,
      ...(message?.status === 'error' && outcome.status === 'ok'
        ? {
            status: 'error' as const,
            error: typeof message.content === 'string' ? message.content : 'error',
          }
        : outcome),
      ...(((outcome.status === 'error' && agentsSdkRejectedInput(span)) ||
        (message?.status === 'error' && isLangChainRefusal(message.content))) && {
        refused: true,
      }),
    };
  },
  requested(span, calls) {
    const a = readAttributes(span);
    if (a['openinference.span.kind'] === 'CHAIN' && span.name === TOOLS_NODE) return toolNode(span);
    if (a['openinference.span.kind'] !== 'LLM') return undefined;
    return llmRequests(a, calls);
  },
  // The OpenAI Agents SDK ends its agent's run when the model names a tool the agent lacks
  // (`ModelBehaviorError: Tool x not found in agent y`), on the AGENT and CHAIN spans it bridges.
  refusal(span) {
    if (span.statusCode !== 2 || readAttributes(span)['openinference.span.kind'] === undefined)
      return undefined;
    const toolName = refusedToolName(span.statusMessage);
    return toolName === undefined ? undefined : { toolName, error: span.statusMessage };
  },
  offered(span) {
    const a = readAttributes(span);
    if (a['llm.tools.0.tool.json_schema'] === undefined) return undefined;
    return indexedAttributes(a, 'llm.tools').flatMap(t =>
      readToolDefinitions(t['tool.json_schema']),
    );
  },
};

/**
 * The calls an LLM span requested, appended to `out`, and the results fed back to it. Out of `requested` so that the
 * other spans do not pay for its closure's context, made on entry to the function that holds it
 * (about 25 bytes a span).
 */
function llmRequests(a: Attributes, out: ExtractedCall[]): ToolResultSeen[] {
  // LangChain's serialized AIMessage (`output.value`) has the calls with their ids, which
  // `llm.output_messages` leaves out (and a model class may not fill at all).
  const serialized = toolCallsIn(parseMaybeJson(a['output.value']));
  const calls = serialized.length
    ? serialized
    : indexedAttributes(a, 'llm.output_messages').flatMap(messageCalls);
  // Input messages replay the calls of earlier model calls: only their results are read.
  const results: ToolResultSeen[] = [];
  let blocksFlattened = false;
  indexedAttributes(a, 'llm.input_messages').forEach(message => {
    const id = message['message.tool_call_id'];
    if (typeof id !== 'string') return;
    if (message['message.role'] === 'tool')
      results.push({
        callId: id,
        result: parseMaybeJson(message['message.content']),
        isError: false,
      });
    else if (message['message.role'] === 'user') blocksFlattened = true;
  });
  // Anthropic's results are `tool_result` blocks in a user message, which the instrumentation
  // flattens to one id and one content per message (the last block's): the request body in
  // `input.value` keeps every block.
  if (blocksFlattened) {
    const request = parseMaybeJson(a['input.value']);
    // Appended, not `push(...)` of a list: past about 120,000 results (4 MB of JSON) a spread
    // overflows the stack and the trace failed unscored.
    if (isRecord(request)) appendToolResultsIn(request.messages, results);
  }
  for (const call of calls) out.push(call);
  return results;
}

function messageCalls(message: Record<string, AttributeValue>): ExtractedCall[] {
  const calls = indexedAttributes(message, 'message.tool_calls');
  return calls.flatMap(call => {
    const name = call['tool_call.function.name'];
    if (typeof name !== 'string' || name === '') return [];
    const id = call['tool_call.id'];
    return [
      {
        rawName: name,
        callId: typeof id === 'string' && id !== '' ? id : undefined,
        arguments: parseMaybeJson(call['tool_call.function.arguments']) ?? undefined,
      },
    ];
  });
}

/**
 * LangChain's serialized `ToolMessage` (`lc`, `type: 'constructor'`, an `id` path ending in
 * `ToolMessage`, and `kwargs`), bare or under `output`, as OpenInference's LangChain
 * instrumentation records a tool's output: its kwargs carry the call id, the content and the
 * status.
 */
function langChainToolMessage(value: unknown): Record<string, unknown> | undefined {
  const node = isRecord(value) && isRecord(value.output) ? value.output : value;
  if (!isRecord(node) || !Array.isArray(node.id) || node.id.at(-1) !== 'ToolMessage')
    return undefined;
  return isRecord(node.kwargs) ? node.kwargs : undefined;
}

/** OpenInference's bridge of the OpenAI Agents SDK for JavaScript (`@openai/agents`). */
const AGENTS_JS_SCOPE = '@arizeai/openinference-instrumentation-openai-agents';

/**
 * The OpenAI Agents SDK's function span for a call whose input it rejected before running the tool
 * (its arguments not JSON, or failing the tool's schema): the span failed with the SDK's
 * `Error running tool` and
 * - the SDK's own error for the input in the error's data (`InvalidToolInputError: …`,
 *   `ModelBehaviorError: Invalid JSON input for tool`; Python: `Invalid JSON input for tool x`),
 *   which it writes when tool data may be logged and the error function is not the default; or
 * - its output for arguments that are not JSON (`An error occurred while parsing tool arguments`);
 *   or
 * - (the JavaScript SDK, tool data not logged, its default) the input blanked: the SDK clears the
 *   span's input of a call it rejected, and records it for every call it ran. Its output is
 *   recorded, so this is not a trace that leaves out inputs and outputs alike.
 * A thrown tool gives the same redacted error and generic output, with its input recorded.
 */
function agentsSdkRejectedInput(span: SpanDigest): boolean {
  if (!span.statusMessage.startsWith('Error running tool')) return false;
  if (AGENTS_INPUT_ERROR.test(span.statusMessage)) return true;
  const a = readAttributes(span);
  const output = a['output.value'];
  if (typeof output === 'string' && output.startsWith(AGENTS_INVALID_JSON_OUTPUT)) return true;
  return span.scopeName === AGENTS_JS_SCOPE && output !== undefined && !a['input.value'];
}

const AGENTS_INPUT_ERROR =
  /"error":\s?"(?:(?:InvalidToolInputError|ModelBehaviorError): )?Invalid (?:JSON )?input for (?:function )?tool\b/;
const AGENTS_INVALID_JSON_OUTPUT = 'An error occurred while parsing tool arguments.';

/** The node of a LangGraph / LangChain agent that runs the model's tool calls (`ToolNode`). */
const TOOLS_NODE = 'tools';

/**
 * The `ToolMessage`s a LangGraph / LangChain `ToolNode` answered (its CHAIN span's `output.value`,
 * `{messages: [...]}`), as results: the only record of a call it did not run, which has no TOOL
 * span (its input failed the tool's schema, or no tool has its name).
 */
function toolNode(span: SpanDigest): ToolResultSeen[] {
  const output = readAttributes(span)['output.value'];
  if (typeof output !== 'string' || !output.includes('ToolMessage')) return [];
  const parsed = parseMaybeJson(output);
  const messages = isRecord(parsed) && Array.isArray(parsed.messages) ? parsed.messages : [];
  const results: ToolResultSeen[] = [];
  for (const m of messages) {
    const message = langChainToolMessage(m);
    if (typeof message?.tool_call_id !== 'string') continue;
    const failed = message.status === 'error';
    results.push({
      callId: message.tool_call_id,
      result: failed ? undefined : parseMaybeJson(message.content),
      isError: failed,
      ...(failed && {
        error: typeof message.content === 'string' ? message.content : 'error',
        refused: isLangChainRefusal(message.content),
      }),
    });
  }
  return results;
}

/** Exposed for the dedupe step: an OpenInference span that wraps a tool of another convention. */
export function isOpenInferenceTool(span: SpanDigest): boolean {
  return readAttributes(span)['openinference.span.kind'] === 'TOOL';
}

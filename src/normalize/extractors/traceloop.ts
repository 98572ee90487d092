import { readAttributes } from '../../ingest/read-attributes.js';
import {
  indexedAttributes,
  isRecord,
  jsonAttribute,
  parseMaybeJson,
  stringAttribute,
} from '../attribute-values.js';
import { isMcpRefusal } from '../tool-failure.js';
import { readToolDefinitions, type OfferedTool } from '../tool-definitions.js';
import { spanOutcome, type ToolCallExtractor, type ToolResultSeen } from './extractor.js';

/**
 * OpenLLMetry / Traceloop. The `@tool` decorator (`withTool` in Node) makes a span
 * `<name>.tool` with `traceloop.span.kind=tool`, `traceloop.entity.name`, and the call's inputs in
 * `traceloop.entity.input` as `{"args":[…],"kwargs":{…}}` (Python) or the argument list (Node).
 * Legacy LLM spans (before the GenAI message attributes) flatten requested calls into
 * `gen_ai.completion.<i>.tool_calls.<j>.{id,name,arguments}` and results into
 * `gen_ai.prompt.<i>.{role=tool,tool_call_id,content}`, and the tools offered into
 * `llm.request.functions.<i>.{name,description,parameters}`. Its MCP instrumentation records the
 * server's tools on each `tools/list.mcp` span (`traceloop.entity.output`: `{tools: [{name, …}]}`).
 */
export const traceloop: ToolCallExtractor = {
  id: 'traceloop',
  executed(span) {
    const a = readAttributes(span);
    if (a['traceloop.span.kind'] !== 'tool') return undefined;
    const rawName =
      stringAttribute(a, 'traceloop.entity.name') ??
      stringAttribute(a, 'gen_ai.tool.name') ??
      span.name.replace(/\.tool$/, '');
    const input = jsonAttribute(a, 'traceloop.entity.input');
    const output = jsonAttribute(a, 'traceloop.entity.output');
    const mcp = span.scopeName === MCP_SCOPE;
    const result = mcp ? mcpResult(output) : output;
    const spanEnd = spanOutcome(span);
    // Its MCP instrumentation also marks a `CallToolResult` with `isError` as `is_error`.
    const failed = mcp && spanEnd.status === 'ok' && isRecord(output) && output.is_error === true;
    const outcome = failed
      ? { status: 'error' as const, error: typeof result === 'string' ? result : 'error' }
      : spanEnd;
    return {
      rawName,
      callId: stringAttribute(a, 'gen_ai.tool.call.id'),
      arguments: mcp ? mcpArguments(input) : entityInput(input),
      result,
      ...outcome,
      // The MCP server's "invalid params" (an input its schema rejects, an unknown tool).
      ...(mcp && outcome.error !== undefined && isMcpRefusal(outcome.error) && { refused: true }),
    };
  },
  requested(span, calls) {
    const a = readAttributes(span);
    // OpenLLMetry numbers choices from 0 and writes each one's role, finish reason, content or
    // tool calls: a span with none of these for choice 0 has no legacy completions, and is
    // answered without scanning its keys.
    if (
      a['gen_ai.completion.0.role'] === undefined &&
      a['gen_ai.completion.0.finish_reason'] === undefined &&
      a['gen_ai.completion.0.content'] === undefined &&
      a['gen_ai.completion.0.tool_calls.0.name'] === undefined
    )
      return undefined;
    const completions = indexedAttributes(a, 'gen_ai.completion');
    if (completions.length === 0) return undefined;
    for (const completion of completions) {
      for (const tc of indexedAttributes(completion, 'tool_calls')) {
        const name = tc.name;
        if (typeof name !== 'string' || name === '') continue;
        calls.push({
          rawName: name,
          callId: typeof tc.id === 'string' && tc.id !== '' ? tc.id : undefined,
          arguments: parseMaybeJson(tc.arguments) ?? undefined,
        });
      }
    }
    const results: ToolResultSeen[] = [];
    for (const prompt of indexedAttributes(a, 'gen_ai.prompt')) {
      if (prompt.role === 'tool' && typeof prompt.tool_call_id === 'string') {
        results.push({
          callId: prompt.tool_call_id,
          result: parseMaybeJson(prompt.content),
          isError: false,
        });
      }
    }
    return results;
  },
  offered(span) {
    const a = readAttributes(span);
    if (a['llm.request.functions.0.name'] !== undefined)
      return indexedAttributes(a, 'llm.request.functions').flatMap(legacyFunction);
    if (span.scopeName !== MCP_SCOPE || !span.name.startsWith('tools/list')) return undefined;
    const output = jsonAttribute(a, 'traceloop.entity.output');
    return isRecord(output) ? readToolDefinitions(output.tools) : undefined;
  },
};

// One `llm.request.functions.<i>` entry as a definition.
function legacyFunction(f: Record<string, unknown>): readonly OfferedTool[] {
  return readToolDefinitions({
    name: f.name,
    description: f.description,
    parameters: f.parameters,
  });
}

const MCP_SCOPE = '@traceloop/instrumentation-mcp';

function mcpArguments(input: unknown): unknown {
  return isRecord(input) && 'tool_name' in input ? input.arguments : input;
}

function mcpResult(output: unknown): unknown {
  return isRecord(output) && 'result' in output ? parseMaybeJson(output.result) : output;
}

function entityInput(input: unknown): unknown {
  if (!isRecord(input) || !('args' in input || 'kwargs' in input)) return input;
  const args = Array.isArray(input.args) ? input.args : [];
  const kwargs = isRecord(input.kwargs) ? input.kwargs : {};
  if (args.length === 0) return kwargs;
  if (Object.keys(kwargs).length === 0) return args.length === 1 ? args[0] : args;
  return input;
}

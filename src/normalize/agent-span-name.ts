import { readAttributes } from '../ingest/read-attributes.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { jsonAttribute, stringAttribute } from './attribute-values.js';

/**
 * What {@link agentSpanName} asks of the rest of a span's trace: whether one of the span's
 * children has its name. Asked only of LangGraph's node spans (OpenInference `CHAIN` with
 * `metadata`), so an implementation builds what it needs on the first call.
 */
export interface SpanChildren {
  hasSameNamedChild(span: SpanDigest): boolean;
}

/**
 * The agent a span stands for, when it is an agent span of a convention spanscore reads, else
 * `undefined`:
 * - OTel GenAI `invoke_agent` (Mastra's `agent_run`, Strands, Google ADK, the Vercel AI SDK 7):
 *   `gen_ai.agent.name`, else `gen_ai.agent.id`, else the name after `invoke_agent `;
 * - OpenInference `AGENT` (the OpenAI Agents SDK's agents through its bridge, `traceAgent`):
 *   `agent.name`, else `graph.node.id`, else the span name;
 * - VoltAgent: the span with `entity.type=agent` and no `span.type` (its llm and tool spans
 *   carry the agent's entity too), named by `subagent.name` on a sub-agent's span (which keeps
 *   its supervisor's entity), else `entity.name`;
 * - OpenLLMetry `traceloop.span.kind=agent`: `traceloop.entity.name`; Langfuse
 *   `langfuse.observation.type=agent`: the span name;
 * - LangGraph (OpenInference): a graph node whose span runs a subgraph of the same name, as
 *   `createReactAgent({ name })` agents do under a supervisor (`hasSameNamedChild`).
 */
export function agentSpanName(span: SpanDigest, trace: SpanChildren): string | undefined {
  const a = readAttributes(span);
  const operation = a['gen_ai.operation.name'];
  if (operation === 'invoke_agent')
    return (
      stringAttribute(a, 'gen_ai.agent.name') ??
      stringAttribute(a, 'gen_ai.agent.id') ??
      afterPrefix(span.name, 'invoke_agent ')
    );
  // A span another GenAI operation marks (chat, execute_tool) is no agent span: most spans of a
  // GenAI trace are answered here, before the other conventions' attributes are read.
  if (operation !== undefined) return undefined;
  const kind = a['openinference.span.kind'];
  if (kind !== undefined && kind !== 'AGENT' && kind !== 'CHAIN') return undefined;
  if (kind === 'AGENT')
    return stringAttribute(a, 'agent.name') ?? stringAttribute(a, 'graph.node.id') ?? span.name;
  if (a['entity.type'] === 'agent' && a['span.type'] === undefined)
    return stringAttribute(a, 'subagent.name') ?? stringAttribute(a, 'entity.name');
  if (a['traceloop.span.kind'] === 'agent') return stringAttribute(a, 'traceloop.entity.name');
  if (a['langfuse.observation.type'] === 'agent') return span.name || undefined;
  if (kind === 'CHAIN' && a.metadata !== undefined && trace.hasSameNamedChild(span)) {
    const metadata = jsonAttribute(a, 'metadata') as { langgraph_node?: unknown } | undefined;
    if (metadata?.langgraph_node === span.name) return span.name;
  }
  return undefined;
}

function afterPrefix(name: string, prefix: string): string | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length).trim();
  return rest === '' ? undefined : rest;
}

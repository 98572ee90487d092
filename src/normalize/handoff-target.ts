import { isRecord, parseMaybeJson } from './attribute-values.js';
import type { ToolCall } from './tool-call.js';

/**
 * The agent a tool call hands the conversation to, when the call is a handoff, else `undefined`.
 * Handoffs are tools to the model, and each framework names its own:
 * - `transfer_to_<agent>` (the OpenAI Agents SDK, LangGraph's supervisor) and
 *   `transfer_back_to_<agent>` (a LangGraph worker returning to its supervisor): a handoff when
 *   `<agent>` is an agent of the trace, so a tool that happens to be named `transfer_to_savings`
 *   stays a tool;
 * - Google ADK's `transfer_to_agent` with `{ agent_name }` (`{ agentName }` in TypeScript); VoltAgent's `delegate_task` with
 *   `{ targetAgents }` (the first of them);
 * - Mastra's sub-agents as tools, `agent-<agent>` (a delegation: the sub-agent answers back), when
 *   `<agent>` is an agent of the trace;
 * - the OpenInference bridge of the OpenAI Agents SDK: a tool span `handoff to <agent>`
 *   (`tool.name` `handoff_to_<agent>`, output `{"to_agent": …}`), always a handoff.
 */
export function handoffTarget(
  call: ToolCall,
  agents: { has(name: string): boolean },
): string | undefined {
  const name = call.rawName;
  // Most calls are tools: answered by their first letter, before any pattern runs.
  const first = name.charCodeAt(0);
  if (
    first !== 116 /* t */ &&
    first !== 104 /* h */ &&
    first !== 97 /* a */ &&
    first !== 100 /* d */
  )
    return undefined;
  if (name === 'transfer_to_agent') {
    const args = parseMaybeJson(call.arguments);
    // Python names the argument `agent_name`, TypeScript `agentName`.
    const target = isRecord(args) ? (args.agent_name ?? args.agentName) : undefined;
    return typeof target === 'string' ? target : undefined;
  }
  if (name === 'delegate_task') {
    const args = parseMaybeJson(call.arguments);
    const targets = isRecord(args) ? args.targetAgents : undefined;
    const target: unknown = Array.isArray(targets) ? (targets as unknown[])[0] : undefined;
    return typeof target === 'string' && agents.has(target) ? target : undefined;
  }
  const transfer = /^(?:transfer_(?:back_)?to_|agent-)(.+)$/.exec(name);
  if (transfer) return agents.has(transfer[1]!) ? transfer[1] : undefined;
  const handoff = /^handoff[ _]to[ _](.+)$/.exec(name);
  if (handoff) {
    const result = parseMaybeJson(call.result);
    return isRecord(result) && typeof result.to_agent === 'string' ? result.to_agent : handoff[1];
  }
  return undefined;
}

import { stableJson } from './stable-json.js';
import type { ToolCall } from './tool-call.js';

/**
 * Identical calls that count as a loop, by default: `tool_loops`, `toolHealth.minRepeats` and
 * `toHaveRepeatedToolCalls` all start from this.
 */
export const DEFAULT_MIN_REPEATS = 3;

/** Calls of one tool by one agent with the same arguments, made `count` times. */
export interface RepeatedCall {
  name: string;
  /** The agent that made them, in a trace with agent spans. */
  agent: string | undefined;
  count: number;
  /** Their call ids, where recorded, in order. */
  callIds: string[];
  /** The arguments they share. */
  arguments: unknown;
  /** The calls themselves, in order. */
  calls: ToolCall[];
}

/** Options of {@link findRepeatedCalls}. */
export interface RepeatedCallsOptions {
  /** Identical calls that make a loop. @defaultValue 3 */
  minRepeats?: number;
}

/**
 * The identical calls of a trace made `minRepeats` times or more: the same tool (canonical name)
 * with the same arguments (compared as canonical JSON, key order ignored), by the same agent; a
 * team's agents are counted apart. Calls whose arguments are not recorded are never identical.
 * In order of first call. Pure.
 */
export function findRepeatedCalls(
  calls: readonly ToolCall[],
  options: RepeatedCallsOptions = {},
): RepeatedCall[] {
  const minRepeats = options.minRepeats ?? DEFAULT_MIN_REPEATS;
  if (calls.length < minRepeats) return [];
  // `tool_loops` and the run's facts ask the same question of the same calls: found once.
  let byMin = found.get(calls);
  const known = byMin?.get(minRepeats);
  if (known) return known;
  const repeated = groupRepeats(calls, minRepeats);
  if (!byMin) found.set(calls, (byMin = new Map<number, RepeatedCall[]>()));
  byMin.set(minRepeats, repeated);
  return repeated;
}

const found = new WeakMap<readonly ToolCall[], Map<number, RepeatedCall[]>>();

function groupRepeats(calls: readonly ToolCall[], minRepeats: number): RepeatedCall[] {
  const groups = new Map<string, RepeatedCall>();
  for (const call of calls) {
    if (call.arguments === undefined) continue;
    const key = `${call.agent ?? ''}\u0000${call.canonicalName}\u0000${stableJson(call.arguments)}`;
    let group = groups.get(key);
    if (!group)
      groups.set(
        key,
        (group = {
          name: call.name,
          agent: call.agent,
          count: 0,
          callIds: [],
          arguments: call.arguments,
          calls: [],
        }),
      );
    group.count++;
    group.calls.push(call);
    if (call.callId !== undefined) group.callIds.push(call.callId);
  }
  return [...groups.values()].filter(g => g.count >= minRepeats);
}

/** Calls per tool (canonical name) and agent, for `maxCallsPerTool`: the tools called more often. */
export function callsPerTool(
  calls: readonly ToolCall[],
): Array<{ name: string; agent: string | undefined; count: number }> {
  const counts = new Map<string, { name: string; agent: string | undefined; count: number }>();
  for (const call of calls) {
    const key = `${call.agent ?? ''}\u0000${call.canonicalName}`;
    let entry = counts.get(key);
    if (!entry) counts.set(key, (entry = { name: call.name, agent: call.agent, count: 0 }));
    entry.count++;
  }
  return [...counts.values()];
}

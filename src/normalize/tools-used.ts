import type { ToolCall } from './tool-call.js';

/**
 * `tools_used`: one entry per canonical name, in order of first call, spelled as first seen after
 * namespace stripping. `functions.get_weather` then `getWeather` give one entry, `get_weather`.
 */
export function toolsUsed(calls: readonly ToolCall[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const call of calls) {
    if (seen.has(call.canonicalName)) continue;
    seen.add(call.canonicalName);
    out.push(call.name);
  }
  return out;
}

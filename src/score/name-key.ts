import { canonicalToolName } from '../normalize/canonical-tool-name.js';
import type { ToolCall } from '../normalize/tool-call.js';

/**
 * How a scorer compares tool names. With `normalize` (the default) both sides compare by canonical
 * name with aliases; without it, raw names compare exactly, case-sensitive, as Mastra does.
 */
export interface NameKey {
  call: (call: ToolCall) => string;
  expected: (name: string) => string;
}

/** Builds the {@link NameKey} for a scorer's `normalize` option. */
export function nameKey(normalize: boolean, aliases: ReadonlyMap<string, string>): NameKey {
  return normalize
    ? { call: c => c.canonicalName, expected: n => canonicalToolName(n, aliases) }
    : { call: c => c.rawName, expected: n => n };
}

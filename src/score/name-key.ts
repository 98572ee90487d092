import { canonicalToolName } from '../normalize/canonical-tool-name.js';
import type { ToolCall } from '../normalize/tool-call.js';

/**
 * How a scorer compares tool names. With `normalize` (the default) both sides compare by canonical
 * name with the scorer's aliases; without it, raw names compare exactly, case-sensitive, as
 * Mastra does.
 */
export interface NameKey {
  call: (call: ToolCall) => string;
  expected: (name: string) => string;
}

/**
 * Builds the {@link NameKey} for a scorer's `normalize` option. Both sides are canonicalized with
 * the same alias map here, whatever map the trace was normalized with; results are memoized for
 * the life of the key (one scoring call).
 */
export function nameKey(normalize: boolean, aliases: ReadonlyMap<string, string>): NameKey {
  if (!normalize) return { call: c => c.rawName, expected: n => n };
  const memo = new Map<string, string>();
  const canonical = (name: string): string => {
    let key = memo.get(name);
    if (key === undefined) memo.set(name, (key = canonicalToolName(name, aliases)));
    return key;
  };
  return {
    call: c => (aliases.size === 0 ? c.canonicalName : canonical(c.rawName)),
    expected: canonical,
  };
}

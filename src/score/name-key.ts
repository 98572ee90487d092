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
 * the same alias map here, whatever map the trace was normalized with. Canonical names are
 * memoized by `canonicalToolName`, so a key costs nothing to build.
 */
export function nameKey(normalize: boolean, aliases: ReadonlyMap<string, string>): NameKey {
  if (!normalize) return RAW_NAMES;
  if (aliases.size === 0) return CANONICAL_NAMES;
  return {
    call: c => canonicalToolName(c.rawName, aliases),
    expected: name => canonicalToolName(name, aliases),
  };
}

const RAW_NAMES: NameKey = { call: c => c.rawName, expected: name => name };
const CANONICAL_NAMES: NameKey = {
  call: c => c.canonicalName,
  expected: name => canonicalToolName(name),
};

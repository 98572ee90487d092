import { flatCopy } from '../ingest/flat-copy.js';
import { cutName } from './input-bounds.js';

/**
 * Tool-name normalization. Two steps, kept apart because `tools_used` shows the first and compares
 * by the second:
 * 1. {@link stripToolNamespace}: trim, Unicode NFC, remove namespace prefixes.
 * 2. {@link canonicalToolName}: fold case and separators, then apply aliases.
 */

// `functions.` (OpenAI), `tools.`, `default_api.` (Gemini), `mcp__<server>__` (Claude Code style).
const NAMESPACES = [/^functions\./i, /^tools\./i, /^default_api\./i, /^mcp__[^_]+(?:_[^_]+)*?__/i];
// `<mcp server>/tool`: one leading path segment.
const SERVER_PREFIX = /^[^/\s]+\/(?=[^/]+$)/;

/** Trim, NFC, and strip one namespace: `functions.get_weather` → `get_weather`. */
export function stripToolNamespace(name: string): string {
  return toolNames(name).stripped;
}

/**
 * The canonical form used for comparison: namespace stripped, camelCase split, lower case, runs of
 * spaces, dots and hyphens folded to one `_`: `getWeather`, `get-weather`, `Get Weather` and
 * `functions.get_weather` all become `get_weather`; `getHTTPStatus` becomes `get_http_status`.
 * Then `aliases` (whose keys and values are canonicalized the same way) map it, once.
 */
export function canonicalToolName(name: string, aliases?: ReadonlyMap<string, string>): string {
  const { folded } = toolNames(name);
  return aliases?.get(folded) ?? folded;
}

/** Names the cache holds at most (then it starts again). */
const CACHE_LIMIT = 10_000;
/**
 * Names longer than this (UTF-16 code units) are worked out every time, never cached: real tool
 * names are short (OpenAI caps function names at 64 characters), and a name comes from a trace
 * anyone can send, so a cache of long names would hold what a sender chose.
 */
const MAX_CACHED_NAME_CHARS = 256;
/** Characters the cache holds at most (names and both forms): about 2 MB of strings. */
const MAX_CACHED_CHARS = 1_000_000;
const cache = new Map<string, { stripped: string; folded: string }>();
let cachedChars = 0;

/**
 * Both forms of a name at once, before aliases: what {@link stripToolNamespace} returns
 * (`stripped`) and the folded form {@link canonicalToolName} maps through aliases (`folded`).
 * Tool names repeat across every trace; a bounded cache keeps the regexes off the hot path. The
 * cache is bounded in names ({@link CACHE_LIMIT}) and characters ({@link MAX_CACHED_CHARS}), and
 * holds no name over {@link MAX_CACHED_NAME_CHARS}: such a name costs its regexes each time, in
 * time linear in its length, at most `INPUT_BOUNDS.maxNameChars`: a longer name is cut to that
 * many characters before it is stripped and folded (`cutName`: both forms are of the cut).
 */
export function toolNames(name: string): { readonly stripped: string; readonly folded: string } {
  let entry = cache.get(name);
  if (entry === undefined) {
    const stripped = strip(cutName(name));
    entry = { stripped, folded: foldName(stripped) };
    if (name.length > MAX_CACHED_NAME_CHARS) return entry;
    const chars = name.length + stripped.length + entry.folded.length;
    if (cache.size >= CACHE_LIMIT || cachedChars + chars > MAX_CACHED_CHARS) {
      cache.clear();
      cachedChars = 0;
    }
    // Kept as copies of their own: a name sliced from a span name (`nameAfter`) or trimmed is a
    // view of all the sender wrote, which the bound in characters would not see.
    const kept = flatCopy(entry.stripped);
    entry = {
      stripped: kept,
      folded: entry.folded === entry.stripped ? kept : flatCopy(entry.folded),
    };
    cache.set(flatCopy(name), entry);
    cachedChars += chars;
  }
  return entry;
}

/** Characters {@link toolNames}' cache holds now (names and both forms): for tests that count it. */
export function toolNameCacheChars(): number {
  return cachedChars;
}

function strip(name: string): string {
  let out = name.normalize('NFC').trim();
  for (const ns of NAMESPACES) {
    const stripped = out.replace(ns, '');
    if (stripped !== out && stripped !== '') {
      out = stripped;
      break;
    }
  }
  const withoutServer = out.replace(SERVER_PREFIX, '');
  return withoutServer === '' ? out : withoutServer;
}

/** Builds the alias map used by {@link canonicalToolName} from `{ alias: canonical }` pairs. */
export function buildAliasMap(
  aliases: Record<string, string> | undefined,
): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const [from, to] of Object.entries(aliases ?? {})) {
    map.set(toolNames(from).folded, toolNames(to).folded);
  }
  return map;
}

function foldName(name: string): string {
  const folded = name
    .replace(/([\p{Ll}\p{Nd}])(\p{Lu})/gu, '$1_$2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1_$2')
    .toLowerCase()
    .replace(/[\s.\-_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return folded === '' ? name : folded;
}

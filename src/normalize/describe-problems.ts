import type { ErrorObject } from 'ajv';
import { cutTextBytes } from '../ingest/cut-text.js';
import { quoteJson } from './quote-json.js';

/**
 * Bounds on the problems a check lists: their text is stored with each call's result and shown,
 * and what they quote (allowed values, patterns, property names, paths) comes from untrusted
 * schemas and arguments.
 */
export const PROBLEM_LIMITS = {
  /** Problems listed per call; the rest are counted. */
  maxProblems: 10,
  /**
   * UTF-8 bytes of one value a problem quotes (an allowed value, a pattern, a property name, the
   * path): a longer one is cut, with `…`.
   */
  maxQuotedBytes: 200,
  /**
   * UTF-8 bytes of one problem, its path and message: an enum's allowed values are listed while
   * they fit (at most 10), then counted (`(and 40 more)`); any other message is cut, with `…`.
   */
  maxProblemBytes: 1_024,
} as const;

/**
 * What {@link describeProblems} reads at most: errors, enough to list its problems and say more;
 * and characters of their paths (the first error's is read whatever its length, at most about
 * twice the arguments' character bound, as Ajv escapes `~` and `/`).
 */
export const DESCRIBE_LIMITS = {
  maxErrors: PROBLEM_LIMITS.maxProblems * 4,
  maxPathChars: 1024 * 1024,
} as const;

/**
 * Ajv's errors as `path: message` (`/amount: must be number`,
 * `/: must have required property 'to'`), each once, a property's before the object's as a whole; at most
 * {@link PROBLEM_LIMITS.maxProblems}, then `… and N more`. Each is at most
 * {@link PROBLEM_LIMITS.maxProblemBytes} bytes, and what it quotes at most
 * {@link PROBLEM_LIMITS.maxQuotedBytes}; a long path keeps its last segment (`/kkk…kkk/17`), and
 * problems are told apart by their whole path, so a cut never merges two.
 *
 * Describes at most {@link DESCRIBE_LIMITS} errors and characters of their paths, whatever the
 * errors' number: reading an error's path copies it whole (Ajv builds it by concatenation, a
 * rope the engine flattens on its first read), so what is bounded is the paths' lengths, read
 * before any of their characters.
 * When errors are left undescribed, the count is not known (`… and more`; they may repeat those
 * listed). An enum's allowed values are quoted once per call however many errors share them, and
 * read only as far as they are quoted. Pure.
 */
export function describeProblems(errors: readonly ErrorObject[]): string[] {
  // A cheap pre-pass: which errors have a path (its length, not its characters, is read).
  const ordered = [...errors.filter(e => e.instancePath), ...errors.filter(e => !e.instancePath)];
  const described = firstToDescribe(ordered);
  const seen = new Set<string>();
  const list: string[] = [];
  const quotes = new QuoteCache();
  for (const e of described) {
    const problem = problemOf(e, quotes);
    // The whole path tells problems apart: cut paths may look alike.
    const key = `${e.instancePath}\u0000${problem}`;
    if (seen.has(key)) continue;
    seen.add(key);
    list.push(problem);
  }
  const undescribed = errors.length - described.length;
  if (list.length <= PROBLEM_LIMITS.maxProblems && undescribed === 0) return list;
  const more = undescribed > 0 ? 'more' : `${list.length - PROBLEM_LIMITS.maxProblems} more`;
  return [...list.slice(0, PROBLEM_LIMITS.maxProblems), `… and ${more}`];
}

// The first errors whose paths' lengths, summed, are within the bound (the first one always).
function firstToDescribe(errors: readonly ErrorObject[]): readonly ErrorObject[] {
  let chars = 0;
  let n = 0;
  for (const e of errors.slice(0, DESCRIBE_LIMITS.maxErrors)) {
    chars += e.instancePath.length;
    if (n > 0 && chars > DESCRIBE_LIMITS.maxPathChars) break;
    n++;
  }
  return errors.slice(0, n);
}

// The quoted allowed values of the last enum quoted: errors repeated (an enum reached through
// many `$ref`s or `allOf` branches) share the schema's array.
class QuoteCache {
  private values: readonly unknown[] | undefined;
  private quotes: string[] = [];

  quotesOf(values: readonly unknown[]): string[] {
    if (values !== this.values) {
      this.values = values;
      this.quotes = values.slice(0, 10).map(v => quoteJson(v, PROBLEM_LIMITS.maxQuotedBytes));
    }
    return this.quotes;
  }
}

function problemOf(e: ErrorObject, quotes: QuoteCache): string {
  const path = `${pathOf(e.instancePath) || '/'}: `;
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues))
    return (
      path +
      oneOf(
        params.allowedValues,
        quotes.quotesOf(params.allowedValues),
        PROBLEM_LIMITS.maxProblemBytes - bytes(path),
      )
    );
  return cutTextBytes(
    path + messageOf(e.keyword, params, e.message),
    PROBLEM_LIMITS.maxProblemBytes,
  );
}

// The path cut to the quoted bytes, its last segment (an item's index, a short key) kept:
// `/kkk…kkk/17`, so the items of one long key read apart.
function pathOf(path: string): string {
  const max = PROBLEM_LIMITS.maxQuotedBytes;
  if (path.length * 3 <= max) return path;
  const cut = cutTextBytes(path, max);
  if (cut === path) return path;
  const last = path.slice(path.lastIndexOf('/'));
  const room = max - bytes(last);
  if (last.length === path.length || room < max / 2) return cut;
  return cutTextBytes(path.slice(0, path.length - last.length), room) + last;
}

// Ajv's message, with what it quotes from the schema or the arguments cut: Ajv's own copies a
// pattern, a property name or a dependency list whole.
function messageOf(
  keyword: string,
  params: Record<string, unknown>,
  message: string | undefined,
): string {
  const text = (name: string): string | undefined =>
    typeof params[name] === 'string' ? quoted(params[name]) : undefined;
  const pattern = text('pattern');
  if (keyword === 'pattern' && pattern !== undefined) return `must match pattern "${pattern}"`;
  const format = text('format');
  if (keyword === 'format' && format !== undefined) return `must match format "${format}"`;
  const missing = text('missingProperty');
  if (keyword === 'required' && missing !== undefined)
    return `must have required property '${missing}'`;
  const property = text('property');
  if (
    (keyword === 'dependencies' || keyword === 'dependentRequired') &&
    missing !== undefined &&
    property !== undefined
  )
    return `must have property '${missing}' when property '${property}' is present`;
  const additional = text('additionalProperty');
  if (keyword === 'additionalProperties' && additional !== undefined)
    return `must NOT have additional property '${additional}'`;
  return message ?? keyword;
}

// `must be one of` the allowed values that fit in `room` bytes (at most 10), each quoted (`quotes`,
// the first ten's quotes).
function oneOf(values: readonly unknown[], quotes: readonly string[], room: number): string {
  let text = 'must be one of ';
  let listed = 0;
  // Room kept for the count of those left out.
  const tail = ` (and ${values.length} more)`;
  for (const quote of quotes) {
    const next = listed ? `, ${quote}` : quote;
    if (listed && bytes(text) + bytes(next) + bytes(tail) > room) break;
    text += next;
    listed++;
  }
  const rest = values.length - listed;
  return rest > 0 ? `${text} (and ${rest} more)` : text;
}

function quoted(text: string): string {
  return cutTextBytes(text, PROBLEM_LIMITS.maxQuotedBytes);
}

function bytes(text: string): number {
  return Buffer.byteLength(text);
}

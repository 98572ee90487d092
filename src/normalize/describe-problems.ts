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
 * Ajv's errors as `path: message` (`/amount: must be number`,
 * `/: must have required property 'to'`), each once, a property's before the object's as a whole; at most
 * {@link PROBLEM_LIMITS.maxProblems}, then `… and N more`. Each is at most
 * {@link PROBLEM_LIMITS.maxProblemBytes} bytes, and what it quotes at most
 * {@link PROBLEM_LIMITS.maxQuotedBytes}: the work is in those bytes, not in the size of the
 * schema's values (an allowed value is read only as far as it is quoted). Pure.
 */
export function describeProblems(errors: readonly ErrorObject[]): string[] {
  const out = new Set<string>();
  const ordered = [...errors.filter(e => e.instancePath), ...errors.filter(e => !e.instancePath)];
  for (const e of ordered) {
    out.add(problemOf(e));
    if (out.size > PROBLEM_LIMITS.maxProblems * 4) break; // enough to say "and more"
  }
  const list = [...out];
  if (list.length <= PROBLEM_LIMITS.maxProblems) return list;
  const more =
    errors.length > list.length ? 'more' : `${list.length - PROBLEM_LIMITS.maxProblems} more`;
  return [...list.slice(0, PROBLEM_LIMITS.maxProblems), `… and ${more}`];
}

function problemOf(e: ErrorObject): string {
  const path = `${quoted(e.instancePath) || '/'}: `;
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues))
    return path + oneOf(params.allowedValues, PROBLEM_LIMITS.maxProblemBytes - bytes(path));
  return cutTextBytes(
    path + messageOf(e.keyword, params, e.message),
    PROBLEM_LIMITS.maxProblemBytes,
  );
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

// `must be one of` the allowed values that fit in `room` bytes (at most 10), each quoted.
function oneOf(values: readonly unknown[], room: number): string {
  let text = 'must be one of ';
  let listed = 0;
  // Room kept for the count of those left out.
  const tail = ` (and ${values.length} more)`;
  for (const value of values.slice(0, 10)) {
    const quote = quoteJson(value, PROBLEM_LIMITS.maxQuotedBytes);
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

import type { z } from 'zod';
import { closestIds } from '../score/closest-ids.js';
import { schemaKeysAt } from './schema-keys-at.js';

/**
 * One validation issue in words for a person: unknown keys are listed by name (zod's own message
 * does not name them), everything else keeps zod's message. Given the `schema` that was parsed, an
 * unknown key is followed by the known key of the same object nearest to it, when one is near
 * enough to be a typo (see {@link nearestKey}), as in
 * `unknown field(s) "toolHeath" (did you mean "toolHealth"?)`. Suite and config errors both use it.
 */
export function describeZodIssue(issue: z.core.$ZodIssue, schema?: z.core.$ZodType): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const unknown = `unknown field(s) ${issue.keys.map(k => `"${k}"`).join(', ')}`;
  if (!schema) return unknown;
  const known = schemaKeysAt(schema, issue.path);
  const hints = issue.keys.flatMap(key => {
    const near = nearestKey(key, known);
    return near === undefined ? [] : [{ key, near }];
  });
  if (hints.length === 0) return unknown;
  const meant =
    hints.length === 1 && issue.keys.length === 1
      ? `"${hints[0]!.near}"`
      : hints.map(h => `"${h.near}" for "${h.key}"`).join(', ');
  return `${unknown} (did you mean ${meant}?)`;
}

/**
 * The known key nearest to `key` within max(2, a third of its length) edits, case folded: close
 * enough for a typo (`reciever`, `toolHeath`, `settleMS`), not so loose that an unrelated key gets
 * a suggestion (`flags` is not `rules`).
 */
function nearestKey(key: string, known: readonly string[]): string | undefined {
  return closestIds(key, known, 1, Math.max(2, Math.floor(key.length / 3)))[0];
}

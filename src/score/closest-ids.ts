import { distance } from 'fastest-levenshtein';

/**
 * The known ids nearest to `id` by edit distance (Levenshtein, case folded), nearest first, at
 * most `count`, and only those within `maxDistance` edits, by default half the id's length (at
 * least 2): what a person most likely meant by an id that matches nothing. Pure.
 */
export function closestIds(
  id: string,
  known: Iterable<string>,
  count = 3,
  maxDistance = Math.max(2, Math.ceil(id.length / 2)),
): string[] {
  const wanted = id.toLowerCase();
  return [...new Set(known)]
    .map(candidate => ({ candidate, d: distance(wanted, candidate.toLowerCase()) }))
    .filter(({ d }) => d <= maxDistance)
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

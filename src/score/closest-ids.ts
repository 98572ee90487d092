import { distance } from 'fastest-levenshtein';

/**
 * The known ids nearest to `id` by edit distance (case folded), nearest first, at most `count`,
 * and only those within half the id's length: what a person most likely meant by an id that
 * matches nothing. Pure.
 */
export function closestIds(id: string, known: Iterable<string>, count = 3): string[] {
  const wanted = id.toLowerCase();
  const limit = Math.max(2, Math.ceil(wanted.length / 2));
  return [...new Set(known)]
    .map(candidate => ({ candidate, d: distance(wanted, candidate.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, count)
    .map(({ candidate }) => candidate);
}

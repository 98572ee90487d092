/**
 * Where the BullMQ driver keeps sessions in Redis, under `prefix`.
 *
 * Per session, every key under the session's hash tag (`{<id>}`), so one script reaches them all
 * on one slot of a cluster:
 * - `<prefix>:session:{<id>}`: part 1's hash, in the previous release's layout (`first`, and
 *   `t:<trace id>` per turn, its spans as one span batch) plus its bookkeeping (`last`, `n`,
 *   `bytes`, `cut`, `done`, `end`: a turn ended the session) and the session's current part
 *   (`part`, absent: 1);
 * - `<prefix>:session:{<id>}:<n>`: part n \> 1's hash, the same fields, and `cont` (the cut of the
 *   part before it);
 * - `<prefix>:session:{<id>}:seen`: the number of the session's latest part, kept as long as run
 *   records are (past its parts' life), so that a turn after its parts' keys are gone opens the
 *   part after it, never part 1 again, continuing its cut: led by `0` when it was cut
 *   `max_traces`, `00` for `max_bytes` (the number alone, as the previous release wrote it:
 *   `max_age`), which a reader of the number alone still reads (`tonumber`).
 *
 * In all, on a slot of their own (`{sessions}`): the bytes every session holds (`bytes`, a hash
 * of part to bytes, and `total`), when each part's keys expire (`expiry`, a sorted set) and the
 * parts waiting for a pass (`due`, a sorted set by when; 0 while a pass is under way); the bytes
 * of the marks of parts admission refused (`marks`; in `bytes` and `expiry` as `~<part>:<id>`).
 *
 * A hostile id may hold `}`: Redis hashes the text between the first `{` and the first `}` after
 * it, so an id with `}` still gives one slot for all its keys, unless that text is empty (an id
 * starting with `}`); such an id (and, to keep the mapping one-to-one, one starting with `~…}`)
 * is written with a `~` before it. Every key suffix is `:` and letters or digits, none a suffix
 * of another, so two ids never share a key.
 */
export interface SessionKeys {
  /** Part 1's hash, which also holds the session's current part. */
  base: string;
  /** Part `part`'s hash. */
  part(part: number): string;
}

/** The keys of one session. */
export function sessionKeys(prefix: string, sessionId: string): SessionKeys {
  const base = `${prefix}:session:{${tagOf(sessionId)}}`;
  return { base, part: part => (part === 1 ? base : `${base}:${part}`) };
}

/** The keys all sessions share, on their own slot. */
export function sessionTotalKeys(prefix: string): {
  total: string;
  bytes: string;
  expiry: string;
  due: string;
  marks: string;
} {
  const base = `${prefix}:sessions:{sessions}`;
  return {
    total: `${base}:total`,
    bytes: `${base}:bytes`,
    expiry: `${base}:expiry`,
    due: `${base}:due`,
    marks: `${base}:marks`,
  };
}

/** How a part is named in the keys all sessions share, and in its job's deduplication id. */
export function partMember(sessionId: string, part: number): string {
  return `${part}:${sessionId}`;
}

/** How the mark of a part admission refused is named in the keys all sessions share. */
export function markMember(sessionId: string, part: number): string {
  return `~${partMember(sessionId, part)}`;
}

/** The session id and part a {@link partMember} names. */
export function parsePartMember(member: string): { sessionId: string; part: number } {
  const colon = member.indexOf(':');
  return { part: Number(member.slice(0, colon)), sessionId: member.slice(colon + 1) };
}

/** The text inside the session's `{…}`: the id, unless its hash tag would be empty. */
function tagOf(sessionId: string): string {
  return /^~*\}/.test(sessionId) ? `~${sessionId}` : sessionId;
}

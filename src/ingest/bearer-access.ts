import { createHash, timingSafeEqual } from 'node:crypto';

/** The two things a token may allow: sending spans, or reading results. */
export type AccessScope = 'ingest' | 'read';

/** The answer to one request: allowed, or refused with its status and why. */
export type AccessDecision =
  { allowed: true } | { allowed: false; status: 401 | 403; message: string };

/**
 * Checks `Authorization: Bearer <token>` headers for one scope. `tokens` lists every configured
 * token with its scopes (a token may hold both). With no token for `scope`, every request is
 * allowed. Otherwise: no header, a malformed one, or a token the service does not know is 401; a
 * known token without this scope is 403. Every configured token is compared, each in constant
 * time on SHA-256 digests, whichever matches, so neither a token, its length nor its position in
 * the list leaks through timing.
 */
export function bearerAccess(
  tokens: { readonly ingest: readonly string[]; readonly read: readonly string[] },
  scope: AccessScope,
): (header: string | undefined) => AccessDecision {
  const known = new Map<string, { digest: Buffer; scopes: Set<AccessScope> }>();
  for (const s of ['ingest', 'read'] as const)
    for (const token of tokens[s]) {
      const entry = known.get(token) ?? { digest: digest(token), scopes: new Set() };
      entry.scopes.add(s);
      known.set(token, entry);
    }
  const entries = [...known.values()];
  if (!entries.some(e => e.scopes.has(scope))) return () => ({ allowed: true });
  const other = scope === 'ingest' ? 'read' : 'ingest';
  return header => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match)
      return { allowed: false, status: 401, message: 'missing or malformed bearer token' };
    const presented = digest(match[1]!);
    let scopes: Set<AccessScope> | undefined;
    for (const e of entries) if (timingSafeEqual(presented, e.digest)) scopes = e.scopes;
    if (!scopes) return { allowed: false, status: 401, message: 'unknown bearer token' };
    if (!scopes.has(scope))
      return {
        allowed: false,
        status: 403,
        message: `this token is ${other === 'read' ? 'a read' : 'an ingest'} token: it may not ${scope === 'ingest' ? 'send spans' : 'read results'}`,
      };
    return { allowed: true };
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

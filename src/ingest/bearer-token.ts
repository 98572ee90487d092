import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A check of `Authorization: Bearer <token>` headers against `token`. Both sides are hashed
 * before a constant-time comparison, so neither the token nor its length leaks through timing.
 */
export function bearerTokenCheck(token: string): (header: string | undefined) => boolean {
  const expected = digest(token);
  return header => {
    const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!.trim()), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

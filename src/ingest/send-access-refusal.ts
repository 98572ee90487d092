import type { FastifyReply } from 'fastify';
import type { AccessDecision } from './bearer-access.js';

/**
 * Answers a request its bearer token does not allow (`bearerAccess`'s refusal): its status, with
 * the `WWW-Authenticate: Bearer` challenge on a 401 (none on a 403: the token is known, its scope
 * is not this one), and `{ error }` saying why. The API's and both `/metrics` routes' one answer.
 */
export function sendAccessRefusal(
  reply: FastifyReply,
  refusal: Extract<AccessDecision, { allowed: false }>,
): FastifyReply {
  if (refusal.status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(refusal.status).send({ error: refusal.message });
}

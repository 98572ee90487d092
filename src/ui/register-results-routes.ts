import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { AccessPolicy } from '../config/resolve-access.js';
import { registerResultsApi, type ResultsApiOptions } from './results-api.js';
import { registerResultsPage } from './results-page.js';

/** What {@link registerResultsRoutes} needs: the API's options and the access policy. */
export interface ResultsRoutesOptions extends Omit<ResultsApiOptions, 'tokens'> {
  access: Pick<AccessPolicy, 'ingestTokens' | 'readTokens' | 'loopbackOnly'>;
}

/**
 * The results page (`/ui/`) and its JSON API (`/api/v1`) on the receiver's port, in a scope of
 * their own so that nothing here touches `/v1/traces`:
 * - security headers on every answer: a Content-Security-Policy (`default-src 'self'`, no inline
 *   script or style, `frame-ancestors 'none'`), `X-Content-Type-Options: nosniff`,
 *   `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`;
 * - with `access.loopbackOnly`, only loopback clients are answered (others: 403 naming the
 *   settings that open it). Behind a reverse proxy on the same machine every client looks local:
 *   set a read token there.
 * - the API's read-token check and CORS (see `registerResultsApi`).
 */
export function registerResultsRoutes(app: FastifyInstance, options: ResultsRoutesOptions): void {
  const { access, ...api } = options;
  void app.register(async scope => {
    await scope.register(helmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      },
      // A plain-HTTP service: TLS, and with it HSTS, belong to whatever terminates it.
      strictTransportSecurity: false,
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
    });
    if (access.loopbackOnly)
      scope.addHook('onRequest', async (request, reply) => {
        if (isLoopbackAddress(request.socket.remoteAddress)) return;
        await reply.code(403).send({
          error:
            'results are served to loopback clients only: set a read token (SPANSCORE_READ_TOKENS, results.readTokens) or results.public: true (SPANSCORE_RESULTS_PUBLIC=true)',
        });
      });
    registerResultsPage(scope);
    registerResultsApi(scope, {
      ...api,
      tokens: { ingest: access.ingestTokens, read: access.readTokens },
    });
  });
}

/** A client address on this machine: 127.0.0.0/8 or `::1`, also as IPv4-mapped IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

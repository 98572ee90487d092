import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { bearerAccess } from '../ingest/bearer-access.js';
import { registerCompareRoutes } from './api/compare-routes.js';
import { registerResultListRoutes } from './api/result-list-routes.js';
import type { ResultsApiOptions } from './api/results-api-options.js';
import { registerSummaryRoutes } from './api/summary-routes.js';
import { registerToolsRoutes } from './api/tools-routes.js';
import { registerTraceRoutes } from './api/trace-routes.js';
import { sendAccessRefusal } from '../ingest/send-access-refusal.js';

export type { ResultsApiOptions } from './api/results-api-options.js';

/**
 * The JSON API over the results store, on the receiver's port, one module per resource:
 * - `GET /api/v1/summary`: totals, per scorer, test case or rule, service and minute, traces not
 *   scored, the export backlog and the requests the receiver refused (`summary-routes.ts`);
 * - `GET /api/v1/tools` and `GET /api/v1/tools/<tool>/failures`: tool health per service and
 *   tool, and a tool's failures by signature (`tools-routes.ts`);
 * - `GET /api/v1/results`: results newest first, paged (`result-list-routes.ts`);
 * - `GET /api/v1/compare`: two versions or two windows compared (`compare-routes.ts`);
 * - `GET /api/v1/traces[/<traceId>[/inspect|/test-case]]` and `GET /api/v1/sessions[/<id>]`:
 *   recent traces and sessions and their run records (`trace-routes.ts`);
 * - `GET /api/v1/config`: what the page needs (trace link template, retention, driver).
 *
 * A bad query parameter is a 400 naming it; with read tokens, a request without one is a 401 (with
 * `WWW-Authenticate: Bearer`) and one with an ingest-only token a 403. CORS only for
 * `corsOrigins`. Register it inside `registerResultsRoutes`, which adds the security headers and
 * the loopback-only rule.
 */
export function registerResultsApi(app: FastifyInstance, options: ResultsApiOptions): void {
  const authorized = bearerAccess(options.tokens ?? { ingest: [], read: [] }, 'read');

  // A scope of its own: its auth hook and JSON error answers apply to /api/v1 only.
  void app.register(
    async api => {
      if (options.corsOrigins?.length)
        await api.register(cors, {
          origin: [...options.corsOrigins],
          methods: ['GET'],
          allowedHeaders: ['authorization'],
          maxAge: 600,
        });
      api.addHook('onRequest', async (request, reply) => {
        if (request.method === 'OPTIONS') return; // a CORS preflight carries no token
        const access = authorized(request.headers.authorization);
        if (!access.allowed) await sendAccessRefusal(reply, access);
      });
      api.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
        const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) request.log.error(error);
        return reply
          .code(status)
          .send({ error: status === 500 ? 'internal error' : error.message });
      });
      api.get('/config', () => ({
        driver: options.driver,
        retentionHours: options.retentionMs / 3_600_000,
        traceUrlTemplate: options.traceUrlTemplate ?? null,
        storeContent: options.storeContent ?? true,
      }));
      registerSummaryRoutes(api, options);
      registerToolsRoutes(api, options);
      registerCompareRoutes(api, options);
      registerResultListRoutes(api, options);
      registerTraceRoutes(api, options);
    },
    { prefix: '/api/v1' },
  );
}

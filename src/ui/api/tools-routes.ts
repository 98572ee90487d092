import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { durationParam, parseApiInput, queryWindow, timeParam } from './api-input.js';
import type { ResultsApiOptions } from './results-api-options.js';
import { withSchemaSources } from './with-schema-sources.js';

const toolsQuery = z
  .object({
    window: durationParam.optional(),
    from: timeParam.optional(),
    to: timeParam.optional(),
    service: z.string().min(1).optional(),
    version: z.string().min(1).optional(),
    agent: z.string().min(1).optional(),
  })
  .strict();

const failuresQuery = z
  .object({
    window: durationParam.optional(),
    from: timeParam.optional(),
    to: timeParam.optional(),
    service: z.string().min(1).optional(),
    version: z.string().min(1).optional(),
  })
  .strict();

const failuresPath = z.object({ tool: z.string().min(1) }).strict();

const FAILURES = '/failures';

/**
 * `GET /api/v1/tools?window=1h[&service=][&version=][&agent=]` (or `from`/`to`): per service and
 * tool, the calls, failed, refused, invalid arguments, never-offered and repeated calls, their
 * rates and the p50/p95 duration, with a per-minute trend (see `summarizeTools`); per tool, the
 * checked calls by where their schema came from and the schema a call without one gets now
 * (`withSchemaSources`).
 *
 * `GET /api/v1/tools/<tool>/failures?window=1h[&service=][&version=]` (or `from`/`to`): the tool's
 * failed and refused calls grouped by normalized error text, most counted first, each with its
 * counts, first and last time, versions and example traces, and per service what was counted
 * as `other` (see `summarizeFailures`).
 */
export function registerToolsRoutes(api: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  api.get('/tools', async request => {
    const q = parseApiInput(toolsQuery, request.query, 'query');
    const { from, to } = queryWindow(q, now());
    const { service, version, agent } = q;
    const summary = await options.store.tools(Math.max(from, now() - options.retentionMs), to, {
      ...(service && { service }),
      ...(version && { version }),
      ...(agent && { agent }),
    });
    // Each tool's checked calls by schema source, and the schema a call without one gets now.
    return withSchemaSources(summary, options.schemaSources);
  });

  // A wildcard, not `/tools/:tool/failures`: Fastify cuts a path parameter at 100 characters
  // (`maxParamLength`, a 414), and a tool's name from a trace may be longer.
  api.get('/tools/*', async (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    if (!rest.endsWith(FAILURES)) return reply.callNotFound();
    const { tool } = parseApiInput(failuresPath, { tool: rest.slice(0, -FAILURES.length) }, 'path');
    const q = parseApiInput(failuresQuery, request.query, 'query');
    const { from, to } = queryWindow(q, now());
    const { service, version } = q;
    const failures = await options.store.failures(Math.max(from, now() - options.retentionMs), to, {
      tool,
      ...(service && { service }),
      ...(version && { version }),
    });
    return { tool, ...failures };
  });
}

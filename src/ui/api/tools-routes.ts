import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { durationParam, parseApiInput, queryWindow, timeParam } from './api-input.js';
import type { ResultsApiOptions } from './results-api-options.js';

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

/**
 * `GET /api/v1/tools?window=1h[&service=][&version=][&agent=]` (or `from`/`to`): per service and
 * tool, the calls, failed, refused, invalid arguments, never-offered and repeated calls, their
 * rates and the p50/p95 duration, with a per-minute trend (see `summarizeTools`).
 */
export function registerToolsRoutes(api: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  api.get('/tools', async request => {
    const q = parseApiInput(toolsQuery, request.query, 'query');
    const { from, to } = queryWindow(q, now());
    const { service, version, agent } = q;
    return options.store.tools(Math.max(from, now() - options.retentionMs), to, {
      ...(service && { service }),
      ...(version && { version }),
      ...(agent && { agent }),
    });
  });
}

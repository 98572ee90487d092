import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { durationParam, parseApiInput, timeParam } from './api-input.js';
import type { ResultsApiOptions } from './results-api-options.js';
import { withToolDiff } from './with-tool-diff.js';

const resultsQuery = z
  .object({
    scorer: z.string().min(1).optional(),
    label: z.enum(['pass', 'fail']).optional(),
    status: z.enum(['scored', 'skipped', 'failed']).optional(),
    testCase: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
    serviceVersion: z.string().min(1).optional(),
    traceId: z
      .string()
      .regex(/^[0-9a-f]{32}$/, 'expected 32 lower-case hex digits')
      .optional(),
    window: durationParam.optional(),
    from: timeParam.optional(),
    to: timeParam.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z
      .string()
      .regex(/^\d{1,16}(-\d{1,16})?(\.\d{1,6})?$/, 'expected a cursor from a previous page')
      .optional(),
  })
  .strict();

/**
 * `GET /api/v1/results?scorer=&label=&status=&testCase=&service=&traceId=&from=&to=&limit=&cursor=`
 * (or `window=1h` for the last hour): results newest first, each with its tool diff, and
 * `nextCursor` for the next page.
 */
export function registerResultListRoutes(api: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  api.get('/results', async request => {
    const q = parseApiInput(resultsQuery, request.query, 'query');
    const { limit, cursor, window, from: fromQuery, to, ...rest } = q;
    // `window`: the last so long, unless `from` says otherwise.
    const from = fromQuery ?? (window !== undefined ? now() - window : undefined);
    const page = await options.store.results(
      {
        ...rest,
        ...(from !== undefined && { fromUnixMs: from }),
        ...(to !== undefined && { toUnixMs: to }),
      },
      limit,
      cursor,
    );
    return { ...page, results: page.results.map(withToolDiff) };
  });
}

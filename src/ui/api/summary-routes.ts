import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { durationParam, parseApiInput, queryWindow, timeParam } from './api-input.js';
import type { ResultsApiOptions } from './results-api-options.js';

const summaryQuery = z
  .object({
    window: durationParam.optional(),
    from: timeParam.optional(),
    to: timeParam.optional(),
    scorer: z.string().min(1).optional(),
    testCase: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
  })
  .strict();

/**
 * `GET /api/v1/summary?window=1h` (or `from`/`to`: Unix ms or ISO 8601; narrow with `scorer`,
 * `testCase`, `service`): counts, pass rate, mean score and judge cost per scorer, per test case or
 * rule and per service; a per-minute timeline; traces not scored by reason; `export`: whether
 * evaluation spans are exported and the backlog; `refused`: the requests this process's receiver
 * refused whole in the window, by reason, with the latest one's answer (not narrowed by the
 * filters: a refused request has no scorer, test case or service); `range`: the range read.
 */
export function registerSummaryRoutes(api: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  api.get('/summary', async request => {
    const q = parseApiInput(summaryQuery, request.query, 'query');
    const { from, to } = queryWindow(q, now());
    const { scorer, testCase, service } = q;
    const oldest = Math.max(from, now() - options.retentionMs);
    const [summary, exportStatus] = await Promise.all([
      options.store.summary(oldest, to, {
        ...(scorer && { scorer }),
        ...(testCase && { testCase }),
        ...(service && { service }),
      }),
      options.exportStatus?.() ?? { enabled: true, waiting: 0, oldestAgeSeconds: 0 },
    ]);
    // The range read, so the page draws its timeline without parsing durations itself.
    return {
      ...summary,
      range: { fromUnixMs: from, toUnixMs: to },
      export: exportStatus,
      refused: options.refusedRequests?.(oldest, to) ?? [],
    };
  });
}

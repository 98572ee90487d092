import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { compareSummaries } from '../../decide/compare-summaries.js';
import { compareTools } from '../../decide/compare-tools.js';
import { newFailureSignatures } from '../../decide/new-failure-signatures.js';
import { summarizeResults } from '../../decide/summarize-results.js';
import type { StoredResult } from '../../results/stored-result.js';
import { SPANSCORE_VERSION } from '../../version.js';
import { badRequest, durationParam, parseApiInput, timeParam } from './api-input.js';
import type { ResultsApiOptions } from './results-api-options.js';

const compareQuery = z
  .object({
    by: z.enum(['version', 'window']),
    baseline: z.string().min(1).optional(),
    candidate: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
    window: durationParam.optional(),
    baselineFrom: timeParam.optional(),
    baselineTo: timeParam.optional(),
    candidateFrom: timeParam.optional(),
    candidateTo: timeParam.optional(),
    alpha: z.coerce.number().gt(0).lt(1).default(0.05),
  })
  .strict()
  .superRefine((q, ctx) => {
    const need = (keys: Array<keyof typeof q>) => {
      for (const key of keys)
        if (q[key] === undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: `required with by=${q.by}` });
    };
    if (q.by === 'version') need(['baseline', 'candidate']);
    // by=window: the last `window` against the one before it, or four explicit times.
    else if (q.window === undefined)
      need(['baselineFrom', 'baselineTo', 'candidateFrom', 'candidateTo']);
  });

/** Results read for one side of a live comparison, at most. */
const MAX_COMPARED_RESULTS = 100_000;

/**
 * `GET /api/v1/compare?by=version&baseline=V1&candidate=V2[&service=S][&window=1h]` (versions are
 * the evaluated traces' `service.version`), or `by=window&window=1h` (the last hour against the
 * hour before), or `by=window&baselineFrom=&baselineTo=&candidateFrom=&candidateTo=`: the
 * comparison `spanscore compare` makes of two run summaries, per test case or rule × scorer, from
 * the stored results (`truncated` when a side had more than 100,000); and `tools`: each tool whose
 * error or invalid-argument rate is compared, with the verdict (see `compareTools`); and
 * `newFailureSignatures`: the failure signatures of the candidate absent from the baseline (see
 * `newFailureSignatures`).
 */
export function registerCompareRoutes(api: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  // Each side reads its time range with no other filter and keeps what matches here: the Redis
  // store scans a bounded number of entries per page: a selective filter could exhaust with
  // results still to come.
  const read = async (fromUnixMs: number, toUnixMs?: number) => {
    const results: StoredResult[] = [];
    let cursor: string | undefined;
    do {
      const page = await options.store.results(
        { fromUnixMs, ...(toUnixMs !== undefined && { toUnixMs }) },
        500,
        cursor,
      );
      results.push(...page.results);
      cursor = page.nextCursor ?? undefined;
    } while (cursor && results.length < MAX_COMPARED_RESULTS);
    return { results, truncated: cursor !== undefined };
  };

  api.get('/compare', async request => {
    const q = parseApiInput(compareQuery, request.query, 'query');
    const oldest = now() - options.retentionMs;
    const inService = (r: StoredResult) => q.service === undefined || r.serviceName === q.service;
    let sides: Array<{ label: Record<string, string>; results: StoredResult[] }>;
    let truncated: boolean;
    const service = q.service ? { service: q.service } : {};
    let tools: ReturnType<typeof compareTools>;
    let signatures: ReturnType<typeof newFailureSignatures>;
    if (q.by === 'version') {
      const from = Math.max(oldest, now() - (q.window ?? options.retentionMs));
      const [baseTools, candidateTools] = await Promise.all(
        [q.baseline!, q.candidate!].map(version =>
          options.store.tools(from, now(), { ...service, version }),
        ),
      );
      tools = compareTools(baseTools!.tools, candidateTools!.tools, q.alpha);
      const [baseFailures, candidateFailures] = await Promise.all(
        [q.baseline!, q.candidate!].map(version =>
          options.store.failures(from, now(), { ...service, version }),
        ),
      );
      signatures = newFailureSignatures(baseFailures!, candidateFailures!);
      const window = await read(from);
      truncated = window.truncated;
      sides = [q.baseline!, q.candidate!].map(version => ({
        label: { 'service.version': version },
        results: window.results.filter(r => inService(r) && r.serviceVersion === version),
      }));
    } else {
      // `window`: the last so long against the same time before it, for a side given no times.
      const at = now();
      const lastWindow =
        q.window === undefined
          ? undefined
          : {
              baseline: [at - 2 * q.window, at - q.window] as const,
              candidate: [at - q.window, at] as const,
            };
      const ranges = (['baseline', 'candidate'] as const).map(side => {
        const [from, to] =
          lastWindow && q[`${side}From`] === undefined
            ? lastWindow[side]
            : [q[`${side}From`]!, q[`${side}To`]!];
        if (from > to) throw badRequest(`query: ${side}From is after ${side}To`);
        return [from, to] as const;
      });
      const sideReads = await Promise.all(
        ranges.map(([from, to]) => read(Math.max(oldest, from), to)),
      );
      const [baseTools, candidateTools] = await Promise.all(
        ranges.map(([from, to]) => options.store.tools(Math.max(oldest, from), to, service)),
      );
      tools = compareTools(baseTools!.tools, candidateTools!.tools, q.alpha);
      const [baseFailures, candidateFailures] = await Promise.all(
        ranges.map(([from, to]) => options.store.failures(Math.max(oldest, from), to, service)),
      );
      signatures = newFailureSignatures(baseFailures!, candidateFailures!);
      truncated = sideReads.some(r => r.truncated);
      sides = sideReads.map((side, i) => ({
        label: {
          from: new Date(ranges[i]![0]).toISOString(),
          to: new Date(ranges[i]![1]).toISOString(),
        },
        results: side.results.filter(inService),
      }));
    }
    const [baseline, candidate] = sides.map(side =>
      summarizeResults(side.results, {
        suite: q.service ?? '(every service)',
        createdAt: new Date(now()),
        labels: side.label,
        spanscoreVersion: SPANSCORE_VERSION,
      }),
    );
    const report = compareSummaries(baseline!, candidate!, { alpha: q.alpha });
    return {
      by: q.by,
      service: q.service ?? null,
      truncated,
      ...report,
      tools,
      newFailureSignatures: signatures,
    };
  });
}

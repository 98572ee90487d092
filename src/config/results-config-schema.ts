import { z } from 'zod';
import { positiveInt } from './number-fields.js';

/**
 * The `results` section: what the results store keeps and for how long, and who may read
 * `/api/v1` and `/ui/`.
 */
export const resultsConfigSchema = z
  .object({
    maxResults: positiveInt()
      .optional()
      .describe(
        'Most recent results kept for `/api/v1` and `/ui/` (memory: a ring; BullMQ: a capped Redis stream). Default: 10,000 with the memory driver (it holds them in its bounded heap), 50,000 with BullMQ.',
      ),
    maxRuns: positiveInt()
      .optional()
      .describe(
        'Run records kept by the memory driver (Redis expires them by `retentionHours`). Default: 5,000.',
      ),
    retentionHours: z.coerce
      .number()
      .positive()
      .default(24)
      .describe('Results, run records and per-minute summaries older than this are dropped.'),
    traceUrlTemplate: z
      .string()
      .refine(t => t.includes('{traceId}'), 'must contain {traceId}')
      .optional()
      .describe(
        "The results page links each trace there; `{traceId}` is replaced, e.g. Jaeger's `http://localhost:16686/trace/{traceId}`.",
      ),
    readTokens: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Read tokens: when any is set, `/api/v1` needs one of them as its bearer token (401 without, 403 with an ingest-only token). A list, so a token rotates without downtime.',
      ),
    public: z
      .boolean()
      .default(false)
      .describe(
        'Serve `/ui/` and `/api/v1` to any client even with no read token set. Without it, a service on a non-loopback address with no read token answers results to loopback clients only (others get 403); ingest is not affected.',
      ),
    corsOrigins: z
      .array(z.string().url())
      .default([])
      .describe('Origins allowed to read `/api/v1` from a browser (CORS); none by default.'),
    storeContent: z
      .boolean()
      .default(true)
      .describe(
        'Keep tool-call arguments and results in run records. Off: they are scored all the same but never stored; run records keep tool names only and say so.',
      ),
    layout: z.coerce
      .number()
      .pipe(z.union([z.literal(1), z.literal(2)]))
      .default(1)
      .describe(
        "How the BullMQ driver's Redis results store writes results (it reads both): `1` keeps each result in the results stream and again in its trace's run record; `2` keeps it in the stream only, the run record pointing at it, with a trace's shared facts and tool calls written once and compact (about a third of the bytes). Switch to `2` only once every process runs a release that reads it, and raise `maxResults` to cover `retentionHours` of results: a run record whose results the stream has dropped says so (`resultsDropped`). See docs/operations.md. The memory driver ignores it.",
      ),
    write: z
      .boolean()
      .default(true)
      .describe(
        "Write this process's results and run records to the results store. Off: traces are scored, exported and counted in `/metrics` as usual, but nothing is kept for `/api/v1` and `/ui/` (they show what other processes wrote): for workers of a deployment that reads results in its tracing backend only, and to measure what the store costs.",
      ),
  })
  .strict()
  .prefault({});

import { z } from 'zod';
import { port, positiveInt } from './number-fields.js';

/**
 * The `worker` section: how many traces are scored at once, retries of retryable failures, BullMQ
 * job locks, and the worker's metrics port.
 */
export const workerConfigSchema = z
  .object({
    concurrency: positiveInt()
      .default(4)
      .describe(
        "Traces scored at once per process; the export of their evaluation spans waits outside this limit (BullMQ: taken in jobs of a request's traces, one job per 16, and up to 16 jobs more per queue shard held while their exports run).",
      ),
    attempts: positiveInt()
      .default(5)
      .describe(
        'Tries for a retryable failure other than an export (a judge 5xx, Redis). Exports retry by age: `export.retryMaxAgeMs`.',
      ),
    backoffMs: positiveInt()
      .default(1000)
      .describe('The first backoff between tries (exponential).'),
    lockDurationMs: positiveInt()
      .default(30_000)
      .describe(
        "BullMQ: how long a job's lock lasts without renewal (a killed worker's job waits this long, plus `stalledIntervalMs`).",
      ),
    stalledIntervalMs: positiveInt()
      .default(30_000)
      .describe('BullMQ: how often workers look for jobs whose worker died, to run them again.'),
    metricsPort: port()
      .optional()
      .describe(
        '`spanscore worker` serves `/metrics` and `/healthz` on this port (also `--metrics-port`; `serve` uses its own port).',
      ),
  })
  .strict()
  .prefault({});

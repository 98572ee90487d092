import { z } from 'zod';
import { positiveInt } from './number-fields.js';

/**
 * The `admission` section: when the receiver refuses traffic (503) because the backlog could not
 * keep it (BullMQ driver).
 */
export const admissionConfigSchema = z
  .object({
    maxBacklogAgeMs: positiveInt()
      .default(900_000)
      .describe(
        'BullMQ driver: the receiver answers 503 with Retry-After while the oldest unscored trace has waited longer than this (workers down or too few), instead of accepting traces it might not score. 15 minutes holds a 10-minute worker outage.',
      ),
    workerAbsenceMs: positiveInt()
      .default(900_000)
      .describe(
        'BullMQ driver: the receiver answers 503 with Retry-After once no worker has been seen (each writes a heartbeat every 5 s) for this long, counted from its own start when none has been.',
      ),
    maxRedisMemoryRatio: z.coerce
      .number()
      .gt(0)
      .max(1)
      .default(0.9)
      .describe(
        "BullMQ driver: the receiver answers 503 with Retry-After while Redis's `used_memory` is at least this share of its `maxmemory` (the fullest master of a cluster), before Redis itself refuses writes.",
      ),
  })
  .strict()
  .prefault({})
  .describe(
    'What the receiver accepts: it refuses (503 + Retry-After, so OTLP exporters retry) what the backlog could not keep. Also `assembly.maxQueuedTraces` (429).',
  );

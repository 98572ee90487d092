import { z } from 'zod';
import { positiveInt } from './number-fields.js';

/** The `metrics` section: how many services `/metrics` labels by name. */
export const metricsConfigSchema = z
  .object({
    maxServices: positiveInt()
      .default(20)
      .describe(
        'Evaluated services labelled by name in `/metrics`; past this many distinct ones, `other`.',
      ),
  })
  .strict()
  .prefault({});

import { z } from 'zod';

/** A production rule as written in the config file. */
export const ruleSchema = z
  .object({
    name: z.string().min(1),
    match: z
      .object({
        /** The root span's `service.name`: exact, or a glob (`checkout-*`). */
        service: z.string().min(1).optional(),
        /** The root span's name: a glob (`invoke_agent *`). */
        rootSpanName: z.string().min(1).optional(),
        /** Attributes the root span must have, with these values. */
        attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
      })
      .strict()
      .default({}),
    /** Share of matching traces scored, decided by the trace id (the same trace always the same way). */
    sampleRate: z.number().min(0).max(1).default(1),
    aliases: z.record(z.string(), z.string()).optional(),
    scorers: z
      .array(z.union([z.string().min(1), z.looseObject({ name: z.string().min(1) })]))
      .min(1),
  })
  .strict();

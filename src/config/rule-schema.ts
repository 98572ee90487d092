import { z } from 'zod';

/** A production rule as written in the config file. */
export const ruleSchema = z
  .object({
    name: z.string().min(1).describe("The rule's name, on its results."),
    match: z
      .object({
        service: z
          .string()
          .min(1)
          .optional()
          .describe("The root span's `service.name`: exact, or a glob (`checkout-*`)."),
        rootSpanName: z
          .string()
          .min(1)
          .optional()
          .describe("The root span's name: a glob (`invoke_agent *`)."),
        attributes: z
          .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
          .optional()
          .describe('Attributes the root span must have, with these values.'),
      })
      .strict()
      .default({})
      .describe('Which traces the rule scores: all of these must hold.'),
    sampleRate: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        'Share of matching traces scored, decided by the trace id (the same trace always the same way).',
      ),
    aliases: z
      .record(z.string(), z.string())
      .optional()
      .describe('Tool-name aliases, `{ alias: name }`: compared as one tool.'),
    scorers: z
      .array(z.union([z.string().min(1), z.looseObject({ name: z.string().min(1) })]))
      .min(1)
      .describe('The scorers run on matching traces: names or `{ name, ...options }`.'),
  })
  .strict();

import { z } from 'zod';

/** Options every built-in scorer accepts. */
export const baseOptionsSchema = z.object({
  /** Score at or above which the label is `pass`. */
  threshold: z.number().min(0).max(1).optional(),
  /** Compare canonical names (default) or raw names exactly (`false`, Mastra's behaviour). */
  normalize: z.boolean().default(true),
});

/**
 * Each options schema's strict twin, made once: `strict()` makes a new schema, which zod compiles
 * on its first parse. Made per call, a suite's every case and scorer built and compiled one: of
 * the 28 s 26,000 cases of two scorers took to load on a busy host, about 20 s.
 */
const STRICT = new WeakMap<z.ZodObject, z.ZodObject>();

/**
 * Validates scorer options with a zod schema; unknown keys are refused so a typo is an error,
 * not a silently ignored option. Throws an `Error` whose message names each bad option. The
 * strict schema is made once per `schema` (keep schemas at module level, not made per call).
 */
export function parseScorerOptions<T extends z.ZodObject>(
  schema: T,
  options: Record<string, unknown>,
): z.infer<T> {
  let strict = STRICT.get(schema);
  if (!strict) STRICT.set(schema, (strict = schema.strict()));
  const result = strict.safeParse(options);
  if (result.success) return result.data as z.infer<T>;
  throw new Error(
    result.error.issues
      .map(issue => {
        const path = issue.path.join('.');
        if (issue.code === 'unrecognized_keys')
          return `unknown option(s) ${issue.keys.map(k => `"${k}"`).join(', ')}`;
        return `option "${path}": ${issue.message}`;
      })
      .join('; '),
  );
}

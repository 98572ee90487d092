import { z } from 'zod';

/** Options every built-in scorer accepts. */
export const baseOptionsSchema = z.object({
  /** Score at or above which the label is `pass`. */
  threshold: z.number().min(0).max(1).optional(),
  /** Compare canonical names (default) or raw names exactly (`false`, Mastra's behaviour). */
  normalize: z.boolean().default(true),
});

/**
 * Validates scorer options with a zod schema; unknown keys are refused so a typo is an error,
 * not a silently ignored option. Throws an `Error` whose message names each bad option.
 */
export function parseScorerOptions<T extends z.ZodObject>(
  schema: T,
  options: Record<string, unknown>,
): z.infer<T> {
  const result = schema.strict().safeParse(options);
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

import type { z } from 'zod';

/**
 * One validation issue in words for a person: unknown keys are listed by name (zod's own message
 * does not name them), everything else keeps zod's message. Suite and config errors both use it.
 */
export function describeZodIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys')
    return `unknown field(s) ${issue.keys.map(k => `"${k}"`).join(', ')}`;
  return issue.message;
}

import { RE2JS } from 're2js';

/**
 * Compiles a pattern with RE2 semantics (re2js): matching takes time linear in the input, so a
 * pattern written to backtrack catastrophically (`(a+)+$`) cannot stall scoring. Lookaround and
 * backreferences are not supported; such a pattern throws an `Error` that says so.
 */
export function compileSafeRegex(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new Error(
      `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message} (RE2 syntax: no lookaround or backreferences)`,
      { cause: error },
    );
  }
}

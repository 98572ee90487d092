/** Where a command writes, and whether those are terminals. Real processes pass `process` streams. */
export interface CliIo {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

/** The process's own streams. */
export const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr };

/**
 * Whether to write ANSI colours to a stream: `NO_COLOR` turns them off, `FORCE_COLOR` (other than
 * `0`) on; otherwise only a terminal gets them, so files, pipes and CI logs stay plain.
 */
export function useColor(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return stream.isTTY === true;
}

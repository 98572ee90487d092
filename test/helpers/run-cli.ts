import { main } from '../../src/cli/main.js';

/**
 * Runs the `spanscore` command line in this process, as `spanscore ...args`, and returns its exit
 * code and what it wrote. `tty` makes stdout look like a terminal (the default output formats
 * depend on it).
 */
export async function runCli(
  args: string[],
  options: { tty?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (s: string) => (stdout += s), isTTY: options.tty ?? false },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
  });
  return { code, stdout, stderr };
}

/** Where a command writes, and whether those are terminals. Real processes pass `process` streams. */
export interface CliIo {
  stdout: { write(chunk: string): unknown; isTTY?: boolean };
  stderr: { write(chunk: string): unknown; isTTY?: boolean };
}

/** The process's own streams. */
export const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr };

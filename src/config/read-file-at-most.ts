import { open } from 'node:fs/promises';

/** What {@link readFileAtMost} read. */
export interface FileHead {
  /** The file's first bytes: all of it when `whole`, else `maxBytes + 1` of it. */
  data: Buffer;
  /** True when the file ended within `maxBytes`. */
  whole: boolean;
}

/**
 * Reads a file, but never more than `maxBytes + 1` bytes of it: a file past the bound is known to
 * be past it without being read whole (a 1 GB file, a named pipe or `/dev/zero` cost at most that
 * much memory and reading). The size `stat` gives is not trusted: a pipe or device says 0, and a
 * file may grow while it is read. Errors are those of `open` and `read` (ENOENT, EISDIR, …).
 */
export async function readFileAtMost(file: string, maxBytes: number): Promise<FileHead> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, 64 * 1024));
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const want = Math.min(buffer.length, maxBytes + 1 - total);
      const { bytesRead } = await handle.read(buffer, 0, want, null);
      if (bytesRead === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
      total += bytesRead;
    }
    return { data: Buffer.concat(chunks, total), whole: total <= maxBytes };
  } finally {
    await handle.close();
  }
}

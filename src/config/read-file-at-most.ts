import { open } from 'node:fs/promises';

/** What {@link readFileAtMost} read. */
export interface FileHead {
  /**
   * The file's bytes: all of it when `whole`; else nothing when `stat` said it is past the bound
   * (a regular file), or the `maxBytes + 1` bytes read to find it is (a pipe, a device, a file
   * that grew).
   */
  data: Buffer;
  /** True when the file ended within `maxBytes`. */
  whole: boolean;
}

/** The first buffer of a file whose size `stat` does not give (a pipe, a device). */
const FIRST_BUFFER_BYTES = 64 * 1024;

/**
 * Reads a file, but never more than `maxBytes + 1` bytes of it: a file past the bound is known to
 * be past it without being read whole (a 1 GB file, a named pipe or `/dev/zero` cost at most that
 * much memory and reading). A regular file whose size (`stat`, of the open handle) is past the
 * bound is refused from it, having read nothing. Otherwise that size only sizes the buffer read
 * into (at most `maxBytes + 1`), and the read itself is bounded: a pipe, a device or a `/proc` file
 * says 0 (or a size it does not hold), and a file may grow or shrink while it is read. A file's
 * bytes are held once: read into one buffer, grown by doubling when the size was not known.
 * Errors are those of `open` and `read` (ENOENT, EISDIR, …).
 */
export async function readFileAtMost(file: string, maxBytes: number): Promise<FileHead> {
  const handle = await open(file, 'r');
  try {
    const stats = await handle.stat();
    const { size } = stats;
    // A regular file's size is known before reading: one past the bound is refused unread.
    if (stats.isFile() && size > maxBytes) return { data: Buffer.alloc(0), whole: false };
    // One byte past the size, so a file of the size it says ends without growing the buffer.
    const first = size > 0 ? size + 1 : FIRST_BUFFER_BYTES;
    let data = Buffer.allocUnsafe(Math.min(maxBytes + 1, first));
    let total = 0;
    while (total <= maxBytes) {
      if (total === data.length) {
        const grown = Buffer.allocUnsafe(Math.min(maxBytes + 1, data.length * 2));
        data.copy(grown, 0, 0, total);
        data = grown;
      }
      const { bytesRead } = await handle.read(data, total, data.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    // What a pipe or a shrunk file left unused is not kept with the bytes.
    const read = total < data.length - 1 ? Buffer.from(data.subarray(0, total)) : data;
    return { data: read.subarray(0, total), whole: total <= maxBytes };
  } finally {
    await handle.close();
  }
}

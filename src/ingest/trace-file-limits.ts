/**
 * What reading trace files from disk (`score`, `inspect`, `suite record`) may cost, whatever the
 * file tree holds: the bytes of one file, and how far and how wide a listing of folders goes.
 * Each is checked before the work it bounds; what is past it is an input problem naming the file
 * or folder and the bound.
 */
export const TRACE_FILE_LIMITS = {
  /**
   * Bytes of one trace file, as read (a plain file) or decompressed (gzip): 256 MiB. A plain file
   * past it is refused from its size, unread (a pipe, or a file that grows while read: having
   * read one byte more). V8 holds no string past 536,870,888 characters, so a JSON file past
   * that could never be read: a 1 GB one was read whole (1.06 GB of memory) to fail with "Cannot
   * create a string longer than 0x1fffffe8 characters".
   */
  maxFileBytes: 256 * 1024 * 1024,
  /**
   * Folders below an input folder a listing enters, through symbolic links too: 32. A trace
   * folder of a CI run is a few levels deep; a link to `/` reaches far deeper.
   */
  maxDepth: 32,
  /**
   * Folder entries (files, folders, links, whatever their name) one listing reads, over all its
   * inputs: 100,000. A CI run reads thousands of trace files; a link to `/` walks millions.
   */
  maxEntries: 100_000,
} as const;

import type { Dir, Dirent, Stats } from 'node:fs';
import { opendir, readlink, realpath, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { TRACE_FILE_LIMITS } from './trace-file-limits.js';

/** The trace files of some inputs, and every entry that is not read, each with why. */
export interface ListedTraceFiles {
  /** The files to read, each once, in the order given and, in a folder, in name order. */
  files: string[];
  /**
   * Entries that cannot be read (an input or link that leads nowhere, a folder not listable), and
   * folders not listed for a bound (`maxDepth`, `maxEntries`), each naming the bound.
   */
  unreadable: Array<{ file: string; message: string }>;
  /**
   * Entries not read though nothing of them is lost: a file or folder reached a second time (through
   * a symbolic link, or named twice), and a pipe, socket or device with a trace file's name.
   */
  skipped: Array<{ file: string; message: string }>;
}

const TRACE_EXTENSIONS = new Set(['.json', '.jsonl', '.ndjson', '.pb', '.binpb', '.protobuf']);

/** True for a name a folder's listing reads: a trace extension, after an optional `.gz`. */
function isTraceFileName(name: string): boolean {
  return TRACE_EXTENSIONS.has(extname(name.replace(/\.gz$/, '')));
}

/** Bounds on {@link listTraceFiles}; the defaults are `TRACE_FILE_LIMITS`. */
export interface ListTraceFilesOptions {
  /** Folders below an input folder entered, through links too. @defaultValue 32 */
  maxDepth?: number;
  /** Folder entries read, over all inputs, whatever their name or kind. @defaultValue 100,000 */
  maxEntries?: number;
}

/**
 * Lists the trace files of `inputs` (files, and folders read recursively in name order, where
 * only names with a trace extension count), following symbolic links as `cat` and `stat` do: a
 * link to a file is that file, a link to a folder that folder. Each file and folder is read once,
 * known by its real path: one reached again (a link back to a folder above it, two links to one
 * file, a file named and also inside a named folder) is named in `skipped` with the path it was
 * read by. A link to nothing, or a folder that cannot be listed, is named in `unreadable`. Costs
 * one `realpath` per folder and per link, none per plain file. Files are appended one at a time:
 * spread into `push`, the 200,000 files of one folder passed more arguments than a call takes.
 *
 * The walk is bounded, as a link to `/` would walk the disk: a folder more than `maxDepth` below
 * its input is not entered, and once `maxEntries` folder entries are read (one more is read to
 * know there are more) no folder is read further. Each is named in `unreadable` with the bound:
 * the folder too deep; the folder the listing stopped in, with how many folders were then left
 * unlisted. A folder cut short keeps the entries read, in the file system's order before sorting.
 */
export async function listTraceFiles(
  inputs: readonly string[],
  options: ListTraceFilesOptions = {},
): Promise<ListedTraceFiles> {
  const maxDepth = options.maxDepth ?? TRACE_FILE_LIMITS.maxDepth;
  const maxEntries = options.maxEntries ?? TRACE_FILE_LIMITS.maxEntries;
  const listed: ListedTraceFiles = { files: [], unreadable: [], skipped: [] };
  // Real path → the path it was first read by, for files and folders alike.
  const seen = new Map<string, string>();
  const once = (real: string, path: string, kind: 'file' | 'folder'): boolean => {
    const first = seen.get(real);
    if (first === undefined) {
      seen.set(real, path);
      return true;
    }
    listed.skipped.push({
      file: path,
      message: `not read again: the same ${kind} as ${first}, which is read once`,
    });
    return false;
  };

  let entriesRead = 0;
  // Once the entries are spent: the folder the listing stopped in, and how many were not listed.
  let stopped: { file: string; message: string } | undefined;
  let notListed = 0;

  const addFolder = async (dir: string, real: string, depth: number): Promise<void> => {
    if (stopped) {
      notListed++;
      return;
    }
    if (depth > maxDepth) {
      listed.unreadable.push({
        file: dir,
        message: `not listed: ${depth} folders below its input, past the bound of ${maxDepth} on a listing's depth`,
      });
      return;
    }
    if (!once(real, dir, 'folder')) return;
    let entries: Dirent[];
    try {
      entries = await readEntries(dir);
    } catch (error) {
      listed.unreadable.push({ file: dir, message: `cannot list the folder: ${reason(error)}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await addFolder(path, join(real, entry.name), depth + 1);
      else if (entry.isFile()) {
        if (isTraceFileName(entry.name) && once(join(real, entry.name), path, 'file'))
          listed.files.push(path);
      } else if (entry.isSymbolicLink()) await addLink(path, entry.name, depth + 1);
      else if (isTraceFileName(entry.name))
        listed.skipped.push({ file: path, message: 'not read: not a regular file' });
    }
  };

  /** A folder's entries, within what is left of `maxEntries`; past it, sets `stopped`. */
  const readEntries = async (dir: string): Promise<Dirent[]> => {
    const entries: Dirent[] = [];
    const handle: Dir = await opendir(dir, { bufferSize: 32 });
    try {
      for (let entry = await handle.read(); entry; entry = await handle.read()) {
        if (++entriesRead > maxEntries) {
          stopped = {
            file: dir,
            message: `not listed whole: the listing read ${maxEntries} folder entries, its bound; the rest of this folder is not read`,
          };
          listed.unreadable.push(stopped);
          break;
        }
        entries.push(entry);
      }
    } finally {
      await handle.close();
    }
    return entries;
  };

  const addLink = async (path: string, name: string, depth: number): Promise<void> => {
    let info: Stats;
    let real: string;
    try {
      info = await stat(path);
      real = await realpath(path);
    } catch (error) {
      listed.unreadable.push({ file: path, message: await brokenLink(path, error) });
      return;
    }
    if (info.isDirectory()) await addFolder(path, real, depth);
    else if (!isTraceFileName(name)) return;
    else if (!info.isFile())
      listed.skipped.push({
        file: path,
        message: 'not read: a link to what is not a regular file',
      });
    else if (once(real, path, 'file')) listed.files.push(path);
  };

  for (const input of inputs) {
    let info: Stats;
    let real: string;
    try {
      info = await stat(input);
      real = await realpath(input);
    } catch (error) {
      listed.unreadable.push({ file: input, message: `cannot read: ${reason(error)}` });
      continue;
    }
    if (info.isDirectory()) await addFolder(input, real, 0);
    // A file named is read whatever its name or kind (`<(zcat run.json.gz)` is a pipe).
    else if (once(real, input, 'file')) listed.files.push(input);
  }
  if (stopped && notListed > 0)
    stopped.message += `, nor ${notListed} more folder${notListed === 1 ? '' : 's'} reached by then`;
  return listed;
}

function reason(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Why a link cannot be followed: where it leads, when that can be read. */
async function brokenLink(path: string, error: unknown): Promise<string> {
  const code = reason(error);
  if (code === 'ELOOP') return 'cannot read: a symbolic link that leads back to itself (ELOOP)';
  try {
    return `cannot read: a symbolic link to ${await readlink(path)}, which cannot be read (${code})`;
  } catch {
    return `cannot read: ${code}`;
  }
}

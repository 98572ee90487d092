import { open } from 'node:fs/promises';

/**
 * Counting what a piece of work does to built-ins, for hostile-input tests that assert work, not
 * time: calls wrapped in place for the work's duration.
 */

/**
 * `work` run with `target[key]` wrapped by `count` (called with the same `this` and arguments):
 * a plain wrapper, not a spy, which would keep every call's arguments (millions here).
 */
export async function counting<T extends object, K extends keyof T>(
  target: T,
  key: K,
  count: (...args: never[]) => void,
  work: () => unknown,
): Promise<void> {
  const original = target[key] as (...args: unknown[]) => unknown;
  target[key] = function (this: unknown, ...args: unknown[]) {
    (count as (...a: unknown[]) => void).apply(this, args);
    return original.apply(this, args);
  } as T[K];
  try {
    await work();
  } finally {
    target[key] = original as T[K];
  }
}

/** Characters handed to `JSON.parse` while `work` runs. */
export async function parsedChars(work: () => unknown): Promise<number> {
  let chars = 0;
  await counting(JSON, 'parse', (text: string) => (chars += text.length), work);
  return chars;
}

// The unwrapped search, for the counter to find what the wrapped call will find.
// eslint-disable-next-line @typescript-eslint/unbound-method -- only ever called with its string
const indexOf = String.prototype.indexOf;

/**
 * Characters of a string read while `work` runs: one for each `charCodeAt`, and those an
 * `indexOf` passed over (from where it started to the end of what it found, or of the string).
 */
export async function charsRead(work: () => unknown): Promise<number> {
  let chars = 0;
  await counting(
    String.prototype,
    'charCodeAt',
    () => chars++,
    () =>
      counting(
        String.prototype,
        'indexOf',
        function (this: string, search: string, from = 0) {
          const start = Math.min(Math.max(from, 0), this.length);
          const at = indexOf.call(this, search, start);
          chars += (at === -1 ? this.length : at + search.length) - start;
        },
        work,
      ),
  );
  return chars;
}

/**
 * Bytes `work` read through `node:fs/promises` file handles (`FileHandle.read`, which
 * `readFileAtMost` reads with), counted as each read resolves.
 */
export async function fileBytesRead(work: () => unknown): Promise<number> {
  const handle = await open(process.execPath, 'r');
  const fileHandle = Object.getPrototypeOf(handle) as {
    read: (...args: unknown[]) => Promise<{ bytesRead: number }>;
  };
  await handle.close();
  const read = fileHandle.read;
  let bytes = 0;
  fileHandle.read = async function (this: unknown, ...args: unknown[]) {
    const done = await read.apply(this, args);
    bytes += done.bytesRead;
    return done;
  };
  try {
    await work();
  } finally {
    fileHandle.read = read;
  }
  return bytes;
}

import { execFileSync } from 'node:child_process';
import { Dir, type Dirent, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { runCli } from '../../test/helpers/run-cli.js';
import { listTraceFiles } from './list-trace-files.js';
import { readTraceFiles } from './read-trace-files.js';

const request = (t: number, name: string): string =>
  JSON.stringify(
    otlpRequest([{ traceId: traceId(t), spanId: spanId(t, 1), name, startMs: 0, endMs: 1 }]),
  );

/**
 * `traces/` holds a file of its own, a link to a file kept elsewhere, a link to that file's folder
 * (so the file again), a link to itself (a cycle), a link to nothing and a pipe with a trace name.
 */
function linkedFolder(): { root: string; traces: string } {
  const root = mkdtempSync(join(tmpdir(), 'spanscore-links-'));
  const traces = join(root, 'traces');
  mkdirSync(join(root, 'kept'));
  mkdirSync(traces);
  writeFileSync(join(root, 'kept', 'run.json'), request(1, 'kept'));
  writeFileSync(join(traces, 'own.json'), request(2, 'own'));
  symlinkSync('../kept/run.json', join(traces, 'a-linked.json'));
  symlinkSync('../kept', join(traces, 'b-kept'));
  symlinkSync('.', join(traces, 'c-loop'));
  symlinkSync('missing.json', join(traces, 'd-broken.json'));
  execFileSync('mkfifo', [join(traces, 'e-pipe.json')]);
  return { root, traces };
}

describe('trace files behind symbolic links', () => {
  it('follows links to files and folders, reads each file once, and names every entry it does not read', async () => {
    const { traces } = linkedFolder();
    const out = await readTraceFiles([traces]);
    expect(out.spans.map(s => s.name)).toEqual(['kept', 'own']);
    expect(out.files).toBe(2);
    expect(out.problems).toEqual([
      {
        file: join(traces, 'd-broken.json'),
        message: 'cannot read: a symbolic link to missing.json, which cannot be read (ENOENT)',
      },
    ]);
    expect(out.warnings).toEqual([
      {
        file: join(traces, 'b-kept', 'run.json'),
        message: `not read again: the same file as ${join(traces, 'a-linked.json')}, which is read once`,
      },
      {
        file: join(traces, 'c-loop'),
        message: `not read again: the same folder as ${traces}, which is read once`,
      },
      { file: join(traces, 'e-pipe.json'), message: 'not read: not a regular file' },
    ]);
  });

  it('reads a file once when it is named twice, or named and inside a folder named', async () => {
    const { root, traces } = linkedFolder();
    const own = join(traces, 'own.json');
    const out = await readTraceFiles([
      own,
      join(root, 'kept'),
      own,
      join(root, 'kept', 'run.json'),
    ]);
    expect(out.spans.map(s => s.name)).toEqual(['own', 'kept']);
    expect(out.warnings.map(w => w.file)).toEqual([own, join(root, 'kept', 'run.json')]);
  });

  it('spanscore inspect and suite record say what they did not read, and exit 2 for the link to nothing', async () => {
    const { traces } = linkedFolder();
    for (const command of [
      ['inspect', '--format', 'json'],
      ['suite', 'record'],
    ]) {
      const { code, stdout, stderr } = await runCli([...command, traces]);
      expect(code).toBe(2);
      expect(stdout).toContain(command[0] === 'inspect' ? traceId(1) : traceId(1).slice(0, 8));
      expect(stderr).toContain(`spanscore: rejected ${join(traces, 'd-broken.json')}: cannot read`);
      expect(stderr).toContain(`spanscore: warning: ${join(traces, 'c-loop')}: not read again`);
      expect(stderr).toContain(`spanscore: warning: ${join(traces, 'e-pipe.json')}: not read`);
    }
  });
});

/** Counts the folder entries read through `Dir.read` (what `opendir` gives) from here on. */
function countEntriesRead(): { entries: number } {
  const counted = { entries: 0 };
  // Only the promise form is called (`await dir.read()`), not the callback overload.
  const dir = Dir.prototype as unknown as { read: (this: Dir) => Promise<Dirent | null> };
  const read = dir.read;
  vi.spyOn(dir, 'read').mockImplementation(async function (this: Dir) {
    const entry = await read.call(this);
    if (entry) counted.entries++;
    return entry;
  });
  return counted;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the bounds on a listing', () => {
  it('enters folders at most maxDepth below the input, and names the first one past it', async () => {
    // A chain root/d1/d2/…/d8, each folder holding one trace file: with no bound a link to `/`
    // walked the whole disk (12,857 files listed in 37 s here).
    const root = mkdtempSync(join(tmpdir(), 'spanscore-deep-'));
    let dir = root;
    for (let depth = 0; depth <= 8; depth++) {
      if (depth > 0) mkdirSync((dir = join(dir, `d${depth}`)));
      writeFileSync(join(dir, 'f.json'), '{}');
    }
    const counted = countEntriesRead();
    const listed = await listTraceFiles([root], { maxDepth: 3 });
    const chain = (n: number): string =>
      join(root, ...[1, 2, 3, 4, 5, 6, 7, 8].slice(0, n).map(i => `d${i}`));
    // In name order: a folder's sub-folder (d…) before its file (f.json).
    expect(listed.files).toEqual([3, 2, 1, 0].map(n => join(chain(n), 'f.json')));
    expect(listed.unreadable).toEqual([
      {
        file: chain(4),
        message: "not listed: 4 folders below its input, past the bound of 3 on a listing's depth",
      },
    ]);
    // root, d1, d2 and d3 each read: a file and a folder.
    expect(counted.entries).toBe(8);
  });

  it('reads at most maxEntries folder entries, one more to know, and names the folder it stopped in', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spanscore-wide-'));
    mkdirSync(join(root, 'a-wide'));
    for (let i = 0; i < 100; i++) writeFileSync(join(root, 'a-wide', `${i}.json`), '{}');
    mkdirSync(join(root, 'b-after'));
    writeFileSync(join(root, 'b-after', 'late.json'), '{}');
    const named = mkdtempSync(join(tmpdir(), 'spanscore-named-'));
    const counted = countEntriesRead();
    const listed = await listTraceFiles([root, named], { maxEntries: 20 });
    // root's two entries, then 18 of a-wide's; the 21st entry read says there are more.
    expect(counted.entries).toBe(21);
    expect(listed.files).toHaveLength(18);
    expect(listed.files.every(f => f.startsWith(join(root, 'a-wide')))).toBe(true);
    expect(listed.unreadable).toEqual([
      {
        file: join(root, 'a-wide'),
        message:
          'not listed whole: the listing read 20 folder entries, its bound; the rest of this folder is not read, nor 2 more folders reached by then',
      },
    ]);
  });

  it('reads a link to a folder that links back to its parent once, counting each entry once', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spanscore-back-'));
    mkdirSync(join(root, 'traces'));
    mkdirSync(join(root, 'other'));
    writeFileSync(join(root, 'traces', 'own.json'), '{}');
    writeFileSync(join(root, 'other', 'o.json'), '{}');
    symlinkSync('../other', join(root, 'traces', 'link'));
    symlinkSync('../traces', join(root, 'other', 'back'));
    const counted = countEntriesRead();
    const listed = await listTraceFiles([join(root, 'traces')], { maxDepth: 100, maxEntries: 100 });
    expect(listed.files).toEqual([
      join(root, 'traces', 'link', 'o.json'),
      join(root, 'traces', 'own.json'),
    ]);
    expect(listed.skipped).toEqual([
      {
        file: join(root, 'traces', 'link', 'back'),
        message: `not read again: the same folder as ${join(root, 'traces')}, which is read once`,
      },
    ]);
    expect(listed.unreadable).toEqual([]);
    expect(counted.entries).toBe(4);
  });

  it('spanscore inspect names the folder past the bound and exits 2', async () => {
    const root = mkdtempSync(join(tmpdir(), 'spanscore-deep-cli-'));
    let dir = root;
    for (let depth = 1; depth <= 34; depth++) mkdirSync((dir = join(dir, 'd')));
    writeFileSync(join(dir, 'deep.json'), request(1, 'too deep'));
    writeFileSync(join(root, 'top.json'), request(2, 'top'));
    const { code, stdout, stderr } = await runCli(['inspect', '--format', 'json', root]);
    expect(code).toBe(2);
    expect(stdout).toContain(traceId(2));
    expect(stdout).not.toContain(traceId(1));
    expect(stderr).toContain(
      `spanscore: rejected ${join(root, ...Array<string>(33).fill('d'))}: not listed: 33 folders below its input, past the bound of 32 on a listing's depth`,
    );
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { runCli } from '../../test/helpers/run-cli.js';
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

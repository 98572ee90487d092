import { mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TRACE_FILE_LIMITS } from '../../src/ingest/trace-file-limits.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { runCli } from '../helpers/run-cli.js';

/**
 * `--max-decompressed-mb` on every command that reads trace files, not only `score`: `inspect`
 * and `suite record` read them with the default bound, and no flag to set it (an unknown option).
 */

/** The commands that read trace files, each as its arguments before the inputs. */
const COMMANDS: Record<string, (d: string) => string[]> = {
  score: d => ['score', '--suite', join(d, 'suite.yaml'), '--format', 'json'],
  inspect: () => ['inspect', '--format', 'json'],
  'suite record': d => ['suite', 'record', '--out', join(d, 'recorded.yaml')],
};

/** A 2 MiB file (sparse) and a small trace file beside it. */
function traces(): string {
  const d = mkdtempSync(join(tmpdir(), 'spanscore-bound-'));
  mkdirSync(join(d, 'traces'));
  writeFileSync(
    join(d, 'suite.yaml'),
    'scorers: [tool_correctness]\ntestCases:\n  - { id: a, expectedTools: [x] }\n',
  );
  writeFileSync(join(d, 'traces', 'a-big.json'), '');
  truncateSync(join(d, 'traces', 'a-big.json'), 2 * 1024 * 1024);
  const small = otlpRequest([
    { traceId: traceId(1), spanId: spanId(1, 1), name: 'small', startMs: 0, endMs: 1 },
  ]);
  writeFileSync(join(d, 'traces', 'b-ok.json'), JSON.stringify(small));
  return d;
}

describe('--max-decompressed-mb', () => {
  it.each(Object.keys(COMMANDS))(
    'bounds the trace files %s reads: the file past it is rejected, the other read',
    async name => {
      const d = traces();
      const { code, stderr } = await runCli([
        ...COMMANDS[name]!(d),
        '--max-decompressed-mb',
        '1',
        join(d, 'traces'),
      ]);
      expect(stderr).toContain(
        `spanscore: rejected ${join(d, 'traces', 'a-big.json')}: file exceeds 1048576 bytes, the bound on a trace file\n`,
      );
      expect(code).toBe(2);
      // Without the flag, the 2 MiB file is within the default bound: read (and not a trace).
      const unbounded = await runCli([...COMMANDS[name]!(d), join(d, 'traces')]);
      expect(unbounded.stderr).not.toContain('the bound on a trace file');
    },
  );

  it.each(Object.keys(COMMANDS))('is in the usage and help of %s, with its default', async name => {
    const { code, stdout } = await runCli([
      ...COMMANDS[name]!('.').slice(0, name === 'suite record' ? 2 : 1),
      '--help',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: spanscore .*\[--max-decompressed-mb MB\] INPUT\.\.\.$/m);
    // Commander wraps the option's description to the terminal's width.
    expect(stdout.replace(/\s+/g, ' ')).toContain(
      `--max-decompressed-mb <mb> largest trace file accepted, in MiB, as read or (gzip) decompressed (default: ${TRACE_FILE_LIMITS.maxFileBytes / (1024 * 1024)})`,
    );
  });
});

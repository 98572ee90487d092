import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/run-cli.js';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { readSummary } from './read-summary.js';

const MiB = 1024 * 1024;

const row = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  testCaseId: 'weather',
  scorer: 'tool_correctness',
  scorerVersion: '1',
  runs: 10,
  passes: 10,
  passRate: 1,
  interval: [0.7225, 1],
  k: 10,
  passAtK: 1,
  passHatK: 1,
  stability: 'stable_pass',
  failingTraceIds: [],
  ...over,
});

const summary = (rows: unknown[]): string =>
  JSON.stringify({
    spanscoreRunSummary: 1,
    suite: 'suite.yaml',
    spanscoreVersion: '0.1.0',
    createdAt: '2026-12-01T00:00:00.000Z',
    labels: {},
    results: rows,
  });

async function refusal(file: string): Promise<{ code: string; message: string }> {
  try {
    await readSummary(file);
  } catch (error) {
    if (isSpanscoreError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the run summary to be refused');
}

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'spanscore-summary-'));
}

describe('run summaries from elsewhere (untrusted)', { timeout: 60_000 }, () => {
  it('stops reading a summary one byte past 32 MiB: a pipe fed 256 MiB gives no more', async () => {
    const fifo = join(folder(), 'baseline.json');
    execFileSync('mkfifo', [fifo]);
    const writer = (async () => {
      const handle = await open(fifo, 'w');
      const chunk = Buffer.alloc(MiB, ' ');
      let written = 0;
      try {
        while (written < 256 * MiB) written += (await handle.write(chunk)).bytesWritten;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
      } finally {
        await handle.close();
      }
      return written;
    })();
    const error = await refusal(fifo);
    // What was read, plus what the pipe and one write in flight hold.
    expect(await writer).toBeLessThanOrEqual(32 * MiB + 2 * MiB);
    expect(error).toEqual({
      code: 'SS_SUMMARY_INVALID',
      message: `${fifo}: the file is larger than 33,554,432 bytes (32 MiB), the bound on a run summary`,
    });
  });

  it('counts JSON items before parsing: a million nested arrays pass the count, one more does not', async () => {
    const dir = folder();
    // Each [ is one item (an array, and no other element beside it).
    writeFileSync(join(dir, 'at.json'), `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    writeFileSync(join(dir, 'past.json'), `${'['.repeat(1_000_001)}${']'.repeat(1_000_001)}`);
    expect(await refusal(join(dir, 'at.json'))).toMatchObject({
      code: 'SS_SUMMARY_INVALID',
      message: expect.stringContaining('not a spanscore run summary') as string,
    });
    expect(await refusal(join(dir, 'past.json'))).toEqual({
      code: 'SS_SUMMARY_INVALID',
      message: `${join(dir, 'past.json')}: the file holds more than 1,000,000 JSON items (objects, arrays and their elements), the bound on a run summary`,
    });
  });

  it('refuses a second row of one test case × scorer, which compare showed as new beside the first', async () => {
    const dir = folder();
    const file = join(dir, 'current.json');
    writeFileSync(join(dir, 'baseline.json'), summary([row()]));
    writeFileSync(
      file,
      summary([row(), row({ passes: 0, passRate: 0, stability: 'stable_fail' })]),
    );
    const { code, stdout, stderr } = await runCli([
      'compare',
      join(dir, 'baseline.json'),
      file,
      '--format',
      'json',
    ]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe(
      `spanscore: ${file}: results.1: a second row for test case "weather" × scorer "tool_correctness" (the first is results.0)\n`,
    );
  });

  it('spanscore compare and score --baseline exit 2 on a 1 GB summary, naming it and the bound', async () => {
    const dir = folder();
    const big = join(dir, 'big.json');
    writeFileSync(join(dir, 'ok.json'), summary([row()]));
    execFileSync('truncate', ['-s', '1G', big]);
    const said = `spanscore: ${big}: the file is larger than 33,554,432 bytes (32 MiB), the bound on a run summary\n`;
    expect(await runCli(['compare', join(dir, 'ok.json'), big])).toEqual({
      code: 2,
      stdout: '',
      stderr: said,
    });
    writeFileSync(join(dir, 'suite.yaml'), 'scorers: [tool_correctness]\ntestCases: []\n');
    const scored = await runCli([
      'score',
      '--suite',
      join(dir, 'suite.yaml'),
      '--baseline',
      big,
      dir,
    ]);
    expect(scored.code).toBe(2);
    expect(scored.stderr).toContain(said);
  });
});

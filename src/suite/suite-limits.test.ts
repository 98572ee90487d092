import { execFileSync } from 'node:child_process';
import { open } from 'node:fs/promises';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/run-cli.js';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { loadSuite, parseSuite } from './load-suite.js';
import { checkSuiteSize } from './suite-limits.js';

const MiB = 1024 * 1024;

async function refusal(load: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await load();
  } catch (error) {
    if (isSpanscoreError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the suite to be refused');
}

/**
 * A flow sequence of `ones` plain scalars `1`, with a comma after each but the last unless
 * `trailingComma`: 1 + ones + commas + 1 tokens, counted by hand.
 */
function flowSequence(ones: number, trailingComma: boolean): string {
  return `[${'1,'.repeat(ones - 1)}1${trailingComma ? ',' : ''}]`;
}

describe('suite size bounds', { timeout: 60_000 }, () => {
  it('stops reading a suite file one byte past 8 MiB: a pipe fed 64 MiB gives no more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    const fifo = join(dir, 'suite.yaml');
    execFileSync('mkfifo', [fifo]);
    // The writer counts what the reader took: it writes until the pipe is closed on it (EPIPE).
    const writer = (async () => {
      const handle = await open(fifo, 'w');
      const chunk = Buffer.alloc(MiB, '#');
      let written = 0;
      try {
        while (written < 64 * MiB) written += (await handle.write(chunk)).bytesWritten;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
      } finally {
        await handle.close();
      }
      return written;
    })();
    const error = await refusal(() => loadSuite(fifo));
    // What was read, plus what the pipe and one write in flight hold.
    expect(await writer).toBeLessThanOrEqual(8 * MiB + 2 * MiB);
    expect(error.code).toBe('SS_SUITE_INVALID');
    expect(error.message).toBe(
      `${fifo}: the suite is larger than 8,388,608 bytes (8 MiB), the bound on a suite file`,
    );
  });

  it('counts tokens, not whitespace or comments, and allows exactly a million', () => {
    expect(checkSuiteSize('scorers: [a] # a comment\n\n', 's.yaml')).toBe(5);
    // [ + 499,999 × (1 and its comma) + ]: 1,000,000.
    expect(checkSuiteSize(flowSequence(499_999, true), 's.yaml')).toBe(1_000_000);
  });

  it('refuses a suite of a million and one YAML tokens before parsing it', async () => {
    // A valid suite but for its size: 1 MB of `1,` (1,000,001 tokens with the rest), which the
    // parser took 500 MB to build.
    const prefix = 'scorers: [tool_correctness]\ntestCases:\n  - id: a\n    expectedTools: [x]\n';
    // scorers : [ tool_correctness ] testCases : - id : a expectedTools : [ x ] metadata : { n :
    // are 21; then [, the ones, a comma between each two, ] and }: 2 × ones + 2.
    const ones = (1_000_001 - 21 - 2) / 2;
    const text = `${prefix}    metadata: { n: ${flowSequence(ones, false)} }\n`;
    const error = await refusal(() => parseSuite(text, 'big.yaml', tmpdir()));
    expect(error).toEqual({
      code: 'SS_SUITE_INVALID',
      message:
        'big.yaml: the suite holds more than 1,000,000 YAML tokens (scalars, brackets, commas and indicators), the bound on a suite file',
    });
  });

  it('suite record --merge holds the suite it merges into to the same bounds, leaving it as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    const file = join(dir, 'suite.yaml');
    const prefix = 'scorers: [tool_correctness]\ntestCases:\n  - id: a\n    expectedTools: [x]\n';
    const text = `${prefix}    metadata: { n: ${flowSequence((1_000_001 - 21 - 2) / 2, false)} }\n`;
    writeFileSync(file, text);
    const fixture = new URL(
      '../../test/fixtures/otlp/captured-langfuse-5.11.1.otlp.json',
      import.meta.url,
    ).pathname;
    const { code, stderr } = await runCli(['suite', 'record', '--merge', file, fixture]);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: the suite holds more than 1,000,000 YAML tokens`);
  });

  it('spanscore score exits 2 on a suite file past 8 MiB, naming the file and the bound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    const file = join(dir, 'suite.yaml');
    writeFileSync(file, `scorers: [tool_correctness]\ntestCases: []\n${'#'.repeat(8 * MiB)}\n`);
    const { code, stderr } = await runCli(['score', '--suite', file, dir]);
    expect(code).toBe(2);
    expect(stderr).toContain(`${file}: the suite is larger than 8,388,608 bytes (8 MiB)`);
  });
});

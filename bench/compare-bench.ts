import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import {
  formatRunSummary,
  type RunSummary,
  type RunSummaryRow,
} from '../src/decide/run-summary.js';
import { passStatistics } from '../src/decide/trial-statistics.js';
import { median } from './measure.js';

const CASES = 1000;
const SCORERS = ['tool_call_accuracy', 'tool_correctness', 'tool_trajectory'];

/** A run summary of CASES × SCORERS rows with 1–20 runs each, from a seeded generator. */
function summary(seed: number, label: string): RunSummary {
  let state = seed;
  const random = (): number => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const results: RunSummaryRow[] = [];
  for (let c = 0; c < CASES; c++)
    for (const scorer of SCORERS) {
      const runs = 1 + Math.floor(random() * 20);
      const passes = Math.floor(random() * (runs + 1));
      results.push({
        testCaseId: `case-${c}`,
        scorer,
        scorerVersion: `${scorer.length.toString(16).padStart(12, '0')}`,
        runs,
        passes,
        k: runs,
        ...passStatistics(passes, runs, runs),
        failingTraceIds: passes < runs ? ['a'.repeat(32)] : [],
      });
    }
  return {
    spanscoreRunSummary: 1,
    suite: 'bench',
    spanscoreVersion: '0.1.0',
    createdAt: new Date(0).toISOString(),
    labels: { run: label },
    results,
  };
}

/**
 * `spanscore compare` on two run summaries of 1,000 test cases × 3 scorers, as the command runs
 * (read both files, validate them, compare, format), in this process, per output format; the
 * baseline is `JSON.parse` of the same two files. Medians of `rounds` rounds after a warm-up.
 */
export async function compareBench(rounds: number): Promise<{
  rows: number;
  bytesPerFile: number;
  baselineMs: number;
  formats: Array<{ format: string; medianMs: number }>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-compare-bench-'));
  try {
    const a = join(dir, 'baseline.json');
    const b = join(dir, 'current.json');
    writeFileSync(a, formatRunSummary(summary(1, 'baseline')));
    writeFileSync(b, formatRunSummary(summary(2, 'current')));
    const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
    const time = async (fn: () => unknown): Promise<number> => {
      await fn();
      const ms: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const start = process.hrtime.bigint();
        await fn();
        ms.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return median(ms);
    };
    const baselineMs = await time(() =>
      [a, b].map(f => JSON.parse(readFileSync(f, 'utf8')) as unknown),
    );
    const formats = [];
    for (const format of ['table', 'json', 'markdown', 'html']) {
      formats.push({
        format,
        medianMs: await time(async () => {
          const code = await main(['compare', a, b, '--format', format], quiet);
          if (code !== 0) throw new Error(`compare exited ${code}`);
        }),
      });
    }
    return {
      rows: CASES * SCORERS.length,
      bytesPerFile: readFileSync(a).length,
      baselineMs,
      formats,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

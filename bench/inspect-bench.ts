import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.js';
import { median } from './measure.js';

const TRACES = 10_000;
const FIXTURE = new URL(
  '../test/fixtures/otlp/captured-langfuse-5.11.1.otlp.json',
  import.meta.url,
);
const SUITE = new URL('../config/suites/framework-captures.yaml', import.meta.url).pathname;

/**
 * `spanscore inspect` against `spanscore score` on the same 10,000 traces (a real Langfuse capture's
 * three traces, repeated with fresh trace ids, in one OTLP/JSON file), both in this process as
 * the commands run (read, decode, then inspect or score), median of `rounds` rounds after a
 * warm-up. Goal: inspect at most 2× score.
 */
export async function inspectBench(rounds: number): Promise<{
  traces: number;
  scoreMs: number;
  inspectMs: number;
  ratio: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-inspect-bench-'));
  try {
    const request = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ traceId: string }> }> }>;
    };
    const copies = Math.ceil(TRACES / 3);
    const text = JSON.stringify(request);
    const lines: string[] = [];
    for (let i = 0; i < copies; i++)
      // A fresh prefix per copy: every copy's three traces are new traces.
      lines.push(
        text.replace(/"traceId":"([0-9a-f]{8})/g, `"traceId":"${i.toString(16).padStart(8, '0')}`),
      );
    const file = join(dir, 'traces.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };
    const time = async (args: string[]): Promise<number> => {
      await main(args, quiet);
      const ms: number[] = [];
      for (let r = 0; r < rounds; r++) {
        const start = process.hrtime.bigint();
        await main(args, quiet);
        ms.push(Number(process.hrtime.bigint() - start) / 1e6);
      }
      return median(ms);
    };
    const scoreMs = await time([
      'score',
      '--suite',
      SUITE,
      '--format',
      'jsonl',
      '--no-progress',
      file,
    ]);
    const inspectMs = await time(['inspect', '--format', 'json', file]);
    return { traces: copies * 3, scoreMs, inspectMs, ratio: inspectMs / scoreMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

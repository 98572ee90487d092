import { setTimeout } from 'node:timers/promises';
import { createToolCallAccuracyScorerCode } from '@mastra/evals/scorers/prebuilt';
import { normalizeTrace } from '../src/normalize/normalize-trace.js';
import { toolCallAccuracy } from '../src/score/deterministic/tool-call-accuracy.js';
import { traceId } from '../test/helpers/otlp-json-builder.js';
import { mastraRun } from '../test/helpers/mastra-run.js';
import { startIsolatedSide } from './isolated-side.js';
import { median } from './measure.js';
import { generateCases, mastraOptionsOf, spansFor, testCaseOf } from './scoring-cases.js';

/**
 * `tool_call_accuracy` against `@mastra/evals`' code scorer on the same 10,000 generated cases
 * (`scoring-cases.ts`). Each side runs in its own worker thread (`scoring-side.ts`), one at a
 * time, in alternating rounds over all the cases: Mastra, spanscore scoring, spanscore
 * normalizing and scoring, with a pause between sides for the last one's background GC work to
 * finish. Each ratio is the median of the rounds' ratios (at least 8 rounds). spanscore's sides
 * run several passes a round, as one pass takes a fraction of Mastra's. Agreement (untimed): with `orderMode: 'mastra'` our score must
 * equal Mastra's on every case.
 */
export async function scoringBench(rounds: number) {
  const cases = generateCases();
  const runs = cases.map(c => mastraRun(c.calls));
  const testCases = cases.map(testCaseOf);
  const mastraMode = toolCallAccuracy.parseOptions({ orderMode: 'mastra' });
  const aliases = new Map<string, string>();
  let agree = 0;
  for (const [i, c] of cases.entries()) {
    const theirs = (await createToolCallAccuracyScorerCode(mastraOptionsOf(c)).run(runs[i]!)).score;
    const ours = toolCallAccuracy.score({
      trace: normalizeTrace(traceId(i + 1), spansFor(c, i)),
      testCase: testCases[i],
      options: mastraMode,
      aliases,
    });
    if (!(ours instanceof Promise) && ours.status === 'scored' && ours.score === theirs) agree++;
  }

  const sides = [
    { side: 'mastra', label: '@mastra/evals 1.10.2 code scorer, scorer.run', passes: 1 },
    { side: 'score', label: 'spanscore tool_call_accuracy (trace normalized)', passes: 200 },
    {
      side: 'normalize+score',
      label: 'spanscore normalize + tool_call_accuracy (from span digests)',
      passes: 40,
    },
  ] as const;
  const workers = await Promise.all(
    sides.map(s =>
      startIsolatedSide(new URL('./scoring-side.ts', import.meta.url), { side: s.side }),
    ),
  );
  try {
    const rates = sides.map(() => [] as number[]);
    for (let r = 0; r < Math.max(8, rounds); r++)
      for (const [k, s] of sides.entries()) {
        await setTimeout(100);
        rates[k]!.push(await workers[k]!.round(s.passes, 0, cases.length));
      }
    const result = sides.map((s, k) => ({
      label: s.label,
      rates: rates[k]!,
      median: median(rates[k]!),
      ratio: median(rates[k]!.map((x, r) => x / rates[0]![r]!)),
    }));
    return {
      cases: cases.length,
      mastraAgreement: agree / cases.length,
      mastra: result[0]!,
      scoreOnly: result[1]!,
      normalizeAndScore: result[2]!,
    };
  } finally {
    await Promise.all(workers.map(w => w.stop()));
  }
}

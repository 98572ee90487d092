import { normalizeTrace } from '../src/normalize/normalize-trace.js';
import { toolCallAccuracy } from '../src/score/deterministic/tool-call-accuracy.js';
import { traceId } from '../test/helpers/otlp-json-builder.js';
import { mastraRun } from '../test/helpers/mastra-run.js';
import { compareIsolated, type SideResult } from './isolated-side.js';
import { mastraScorers } from './mastra-scorers.js';
import { generateCases, spansFor, testCaseOf } from './scoring-cases.js';

/**
 * `tool_call_accuracy` against `@mastra/evals`' code scorer on the same 10,000 generated cases
 * (`scoring-cases.ts`), each side in a worker thread of its own (`scoring-side.ts`), compared in
 * at least 8 alternating rounds over all the cases ({@link compareIsolated}): Mastra, spanscore
 * scoring, spanscore normalizing and scoring. spanscore's sides run several passes a round, as
 * one pass takes a fraction of Mastra's. Agreement (untimed): with `orderMode: 'mastra'` our
 * score must equal Mastra's on every case.
 */
export async function scoringBench(rounds: number) {
  const cases = generateCases();
  const runs = cases.map(c => mastraRun(c.calls));
  const scorers = mastraScorers(cases);
  const testCases = cases.map(testCaseOf);
  const mastraMode = toolCallAccuracy.parseOptions({ orderMode: 'mastra' });
  const aliases = new Map<string, string>();
  let agree = 0;
  for (const [i, c] of cases.entries()) {
    const theirs = (await scorers[i]!.run(runs[i]!)).score;
    const ours = toolCallAccuracy.score({
      trace: normalizeTrace(traceId(i + 1), spansFor(c, i)),
      testCase: testCases[i],
      options: mastraMode,
      aliases,
    });
    if (!(ours instanceof Promise) && ours.status === 'scored' && ours.score === theirs) agree++;
  }

  const [mastra, scoreOnly, normalizeAndScore] = (await compareIsolated(
    new URL('./scoring-side.ts', import.meta.url),
    [
      {
        label: '@mastra/evals 1.10.2 code scorer, scorer.run',
        workerData: { side: 'mastra' },
        passes: 1,
      },
      {
        label: 'spanscore tool_call_accuracy (trace normalized)',
        workerData: { side: 'score' },
        passes: 200,
      },
      {
        label: 'spanscore normalize + tool_call_accuracy (from span digests)',
        workerData: { side: 'normalize+score' },
        passes: 40,
      },
    ],
    Math.max(8, rounds),
  )) as [SideResult, SideResult, SideResult];
  return {
    cases: cases.length,
    mastraAgreement: agree / cases.length,
    mastra,
    scoreOnly,
    normalizeAndScore,
  };
}

/**
 * One side of the scoring bench, run in its own worker thread (its own V8 isolate: heap, JIT state
 * and inline caches), so neither side's code or garbage slows the other, as a deployed spanscore
 * never shares an isolate with Mastra (`isolated-side.ts`); its rates are cases per second.
 *
 * Sides: `mastra` (`@mastra/evals`' code scorer, one scorer per configuration built once, its
 * fastest use, then `scorer.run` per case); `score` (spanscore's `tool_call_accuracy` on traces
 * normalized beforehand); `normalize+score` (normalizing the span digests, then scoring).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { normalizeTrace } from '../src/normalize/normalize-trace.js';
import { toolCallAccuracy } from '../src/score/deterministic/tool-call-accuracy.js';
import { traceId } from '../test/helpers/otlp-json-builder.js';
import { mastraRun } from '../test/helpers/mastra-run.js';
import { serveSide } from './isolated-side.js';
import { mastraScorers } from './mastra-scorers.js';
import { generateCases, spansFor, testCaseOf } from './scoring-cases.js';

export type Side = 'mastra' | 'score' | 'normalize+score';

const side = (workerData as { side: Side }).side;
const cases = generateCases();

async function passFor(s: Side): Promise<() => Promise<void>> {
  if (s === 'mastra') {
    const runs = cases.map(c => mastraRun(c.calls));
    const scorers = mastraScorers(cases);
    return async () => {
      for (let i = 0; i < cases.length; i++) await scorers[i]!.run(runs[i]!);
    };
  }
  const spans = cases.map(spansFor);
  const testCases = cases.map(testCaseOf);
  const options = toolCallAccuracy.parseOptions({});
  const aliases = new Map<string, string>();
  const ids = cases.map((_, i) => traceId(i + 1));
  // Each side holds only what it reads: 10,000 normalized traces kept alive beside the
  // normalizing loop doubled its time (measured 9 against 5 µs a case), which a worker scoring
  // one trace at a time never pays.
  const traces = s === 'score' ? spans.map((sp, i) => normalizeTrace(ids[i]!, sp)) : [];
  const trace =
    s === 'score' ? (i: number) => traces[i]! : (i: number) => normalizeTrace(ids[i]!, spans[i]!);
  return () => {
    for (let i = 0; i < cases.length; i++)
      void toolCallAccuracy.score({ trace: trace(i), testCase: testCases[i], options, aliases });
    return Promise.resolve();
  };
}

await serveSide(parentPort!, cases.length, await passFor(side));

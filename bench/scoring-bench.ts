import { createToolCallAccuracyScorerCode } from '@mastra/evals/scorers/prebuilt';
import { mastraRun } from '../test/helpers/mastra-run.js';
import { decodeOtlpJson } from '../src/ingest/decode-otlp-json.js';
import type { SpanDigest } from '../src/ingest/span-digest.js';
import { normalizeTrace, type NormalizedTrace } from '../src/normalize/normalize-trace.js';
import { toolCallAccuracy } from '../src/score/deterministic/tool-call-accuracy.js';
import type { TestCase } from '../src/score/test-case.js';
import { otlpRequest, spanId, traceId, type SpanInput } from '../test/helpers/otlp-json-builder.js';
import { medianRateAsync, prng } from './measure.js';

const VOCAB = [
  'search',
  'weather',
  'calendar',
  'email',
  'fetch',
  'auth',
  'log',
  'translate',
  'calculator',
  'maps',
  'stocks',
  'news',
];

interface Case {
  calls: string[];
  expectedTool?: string;
  expectedToolOrder?: string[];
  strictMode: boolean;
}

/** 10,000 cases as in the reference measurement: 0–6 calls from 12 names, 8 configurations, ~40% seeded to pass. */
export function generateCases(n = 10_000, seed = 42): Case[] {
  const rand = prng(seed);
  const pick = (): string => VOCAB[Math.floor(rand() * VOCAB.length)]!;
  return Array.from({ length: n }, () => {
    const calls = Array.from({ length: Math.floor(rand() * 7) }, pick);
    const strictMode = rand() < 0.5;
    const pass = rand() < 0.4 && calls.length > 0;
    if (rand() < 0.5) return { calls, strictMode, expectedTool: pass ? calls[0]! : pick() };
    const order = pass ? calls.filter((_, i) => i % 2 === 0) : [pick(), pick()];
    return { calls, strictMode, expectedToolOrder: order.length ? order : [pick()] };
  });
}

export function spansFor(c: Case, i: number): SpanDigest[] {
  const t = traceId(i + 1);
  const spans: SpanInput[] = [
    {
      traceId: t,
      spanId: spanId(i, 1),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    },
  ];
  c.calls.forEach((name, k) =>
    spans.push({
      traceId: t,
      spanId: spanId(i, k + 2),
      parentSpanId: spanId(i, 1),
      name: `execute_tool ${name}`,
      startMs: 1 + k,
      endMs: 2 + k,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': name,
        'gen_ai.tool.call.id': `c${k}`,
        'gen_ai.tool.call.arguments': '{"q":"x"}',
      },
    }),
  );
  return decodeOtlpJson(otlpRequest(spans)).spans;
}

export async function scoringBench(rounds: number) {
  const cases = generateCases();
  const runs = cases.map(c => mastraRun(c.calls));
  const spans = cases.map(spansFor);
  const traces: NormalizedTrace[] = spans.map((s, i) => normalizeTrace(traceId(i + 1), s));
  const testCases: TestCase[] = cases.map((c, i) => ({
    id: `case-${i}`,
    scorers: [],
    strictMode: c.strictMode,
    ...(c.expectedTool && { expectedTool: c.expectedTool }),
    ...(c.expectedToolOrder && { expectedToolOrder: c.expectedToolOrder }),
  }));
  const options = toolCallAccuracy.parseOptions({});
  const aliases = new Map<string, string>();

  // Mastra: one scorer per configuration, built once (its fastest use), then scorer.run per case.
  const configs = new Map<string, ReturnType<typeof createToolCallAccuracyScorerCode>>();
  const scorerFor = (c: Case) => {
    const key = JSON.stringify([c.expectedTool, c.expectedToolOrder, c.strictMode]);
    let s = configs.get(key);
    if (!s)
      configs.set(
        key,
        (s = createToolCallAccuracyScorerCode({
          ...(c.expectedTool && { expectedTool: c.expectedTool }),
          ...(c.expectedToolOrder && { expectedToolOrder: c.expectedToolOrder }),
          strictMode: c.strictMode,
        })),
      );
    return s;
  };
  const mastraScorers = cases.map(scorerFor);
  // Agreement, untimed: with orderMode 'mastra' our scorer must give Mastra's score on every case.
  const mastraMode = toolCallAccuracy.parseOptions({ orderMode: 'mastra' });
  let agree = 0;
  for (let i = 0; i < cases.length; i++) {
    const theirs = (await mastraScorers[i]!.run(runs[i]!)).score;
    const ours = toolCallAccuracy.score({
      trace: traces[i]!,
      testCase: testCases[i],
      options: mastraMode,
      aliases,
    });
    if (!(ours instanceof Promise) && ours.status === 'scored' && ours.score === theirs) agree++;
  }
  const mastra = await medianRateAsync(
    '@mastra/evals 1.10.2 code scorer, scorer.run',
    cases.length,
    async () => {
      for (let i = 0; i < cases.length; i++) await mastraScorers[i]!.run(runs[i]!);
    },
    rounds,
  );
  const scoreOnly = await medianRateAsync(
    'spanscore tool_call_accuracy (trace normalized)',
    cases.length,
    () => {
      for (let i = 0; i < cases.length; i++)
        void toolCallAccuracy.score({
          trace: traces[i]!,
          testCase: testCases[i],
          options,
          aliases,
        });
      return Promise.resolve();
    },
    rounds,
  );
  const normalizeAndScore = await medianRateAsync(
    'spanscore normalize + tool_call_accuracy (from span digests)',
    cases.length,
    () => {
      for (let i = 0; i < cases.length; i++)
        void toolCallAccuracy.score({
          trace: normalizeTrace(traces[i]!.traceId, spans[i]!),
          testCase: testCases[i],
          options,
          aliases,
        });
      return Promise.resolve();
    },
    rounds,
  );
  return {
    cases: cases.length,
    mastraAgreement: agree / cases.length,
    mastra,
    scoreOnly,
    normalizeAndScore,
  };
}

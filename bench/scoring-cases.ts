/**
 * The scoring bench's cases: 10,000 generated tool-call runs, the span digests each would send,
 * and the test case each is scored against. Shared by the bench's sides (`scoring-side.ts`), the
 * agreement check and the normalize profiler, so all of them read the same data.
 */
import { decodeOtlpJson } from '../src/ingest/decode-otlp-json.js';
import type { SpanDigest } from '../src/ingest/span-digest.js';
import type { TestCase } from '../src/score/test-case.js';
import { otlpRequest, spanId, traceId, type SpanInput } from '../test/helpers/otlp-json-builder.js';
import { prng } from './measure.js';

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

export interface Case {
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

/** The test case of case `i`: its expectations as a suite would give them. */
export function testCaseOf(c: Case, i: number): TestCase {
  return {
    id: `case-${i}`,
    scorers: [],
    strictMode: c.strictMode,
    ...(c.expectedTool && { expectedTool: c.expectedTool }),
    ...(c.expectedToolOrder && { expectedToolOrder: c.expectedToolOrder }),
  };
}

/** Mastra's scorer options for case `c` (its expectations, as `createToolCallAccuracyScorerCode` takes them). */
export function mastraOptionsOf(c: Case): {
  expectedTool?: string;
  expectedToolOrder?: string[];
  strictMode: boolean;
} {
  return {
    ...(c.expectedTool && { expectedTool: c.expectedTool }),
    ...(c.expectedToolOrder && { expectedToolOrder: c.expectedToolOrder }),
    strictMode: c.strictMode,
  };
}

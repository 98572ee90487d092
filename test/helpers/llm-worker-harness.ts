import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import type { EvaluationSpan } from '../../src/emit/score-to-span.js';
import { startService, type Service } from '../../src/server/start-service.js';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
  type ScriptedReply,
} from './openai-compatible-server.js';
import { otlpRequest, spanId, traceId } from './otlp-json-builder.js';
import { REDIS_URL, redisFor, testPrefix } from './redis.js';

/**
 * A service with a weather suite (`tool_call_accuracy`, and `tool_call_appropriateness` on the
 * judge) against a scripted OpenAI-compatible judge server, on either driver: the LLM worker
 * tests' harness. What it starts is closed by the `closers` given, last first.
 */
const SUITE = `name: llm-worker
scorers:
  - tool_call_accuracy
  - tool_call_appropriateness
testCases:
  - { id: weather, input: What is the weather in Paris?, expectedTool: weather }
`;

/** A good verdict for the weather call, 400 input and 100 output tokens. */
export const goodVerdict: ScriptedReply = judgeAnswer(
  {
    evaluations: [{ toolCalled: 'weather', wasAppropriate: true, reasoning: 'weather ask' }],
    missingTools: [],
    clarificationWasAppropriate: false,
    reason: 'The weather tool fits the question.',
  },
  { prompt_tokens: 400, completion_tokens: 100 },
);
/** A 500. */
export const serverError: ScriptedReply = { status: 500, body: '{"error":{"message":"boom"}}' };

/** A weather-agent trace: a root carrying the test case id and one `weather` tool call. */
function weatherTrace(t: number, city: string): ReturnType<typeof otlpRequest> {
  return otlpRequest([
    {
      traceId: traceId(t),
      spanId: spanId(t, 1),
      name: 'invoke_agent weather-agent',
      startMs: 0,
      endMs: 10,
      attributes: {
        'spanscore.test_case.id': 'weather',
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'What is the weather in Paris?' }] },
        ]),
      },
    },
    {
      traceId: traceId(t),
      spanId: spanId(t, 2),
      parentSpanId: spanId(t, 1),
      name: 'execute_tool weather',
      startMs: 1,
      endMs: 5,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'weather',
        'gen_ai.tool.call.arguments': JSON.stringify({ city }),
      },
    },
  ]);
}

/** What {@link harness} started. */
export interface Harness {
  judgeServer: OpenAiCompatibleServer;
  exported: Array<EvaluationSpan & { at: number }>;
  service: Service;
  prefix: string;
  send: (t: number, city?: string) => Promise<number>;
  spansFor: (t: number, scorer: string) => Array<EvaluationSpan & { at: number }>;
}

export async function harness(
  closers: Array<() => Promise<unknown>>,
  script: ScriptedReply[],
  judge: Record<string, unknown> = {},
  prefix = testPrefix(),
  judgeServer?: OpenAiCompatibleServer,
  driver: 'bullmq' | 'memory' = 'bullmq',
  /** More config overrides, by full key (`assembly.rescoreLateSpans`). */
  more: Record<string, unknown> = {},
): Promise<Harness> {
  const redis = redisFor(prefix);
  closers.push(redis.cleanup);
  const server = judgeServer ?? (await startOpenAiCompatibleServer(script));
  if (!judgeServer) closers.push(() => server.close());
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-llm-worker-'));
  writeFileSync(join(dir, 'suite.yaml'), SUITE);
  const overrides: Record<string, unknown> = {
    ...(driver === 'bullmq' ? { 'queue.redisUrl': REDIS_URL } : { 'queue.driver': 'memory' }),
    'queue.prefix': prefix,
    'receiver.port': 0,
    'receiver.host': '127.0.0.1',
    'assembly.settleMs': 100,
    'export.logResults': false,
    'judge.model': 'judge-model',
    'judge.baseUrl': server.baseURL,
    'judge.apiKey': 'test-key',
    'judge.backoffMs': 100,
    suites: [join(dir, 'suite.yaml')],
  };
  for (const [key, value] of Object.entries(judge)) overrides[`judge.${key}`] = value;
  Object.assign(overrides, more);
  const config = await loadConfig({ env: {}, overrides });
  const exported: Array<EvaluationSpan & { at: number }> = [];
  const service = await startService(
    config,
    { receiver: true, workers: true },
    {
      log: () => undefined,
      exporter: {
        export: spans => (
          exported.push(...spans.map(s => ({ ...s, at: Date.now() }))),
          Promise.resolve()
        ),
        shutdown: () => Promise.resolve(),
      },
    },
  );
  closers.push(() => service.close());
  return {
    judgeServer: server,
    exported,
    service,
    prefix,
    async send(t, city = 'Paris') {
      const response = await fetch(service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(weatherTrace(t, city)),
      });
      return response.status;
    },
    spansFor: (t, scorer) =>
      exported.filter(
        s => s.traceId === traceId(t) && s.attributes['gen_ai.evaluation.name'] === scorer,
      ),
  };
}

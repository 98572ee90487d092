import { afterEach, expect, it } from 'vitest';
import { judgeConfigSchema } from '../../src/config/judge-config-schema.js';
import { createLlmContext } from '../../src/judge/create-llm-context.js';
import { createMemorySpendLedger } from '../../src/score/llm/spend-ledger.js';
import { createServiceMetrics } from '../../src/server/service-metrics.js';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../helpers/openai-compatible-server.js';

const servers: OpenAiCompatibleServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

// Each answer: 400 input tokens at $500/M + 100 output tokens at $1000/M = $0.30.
const usage = { prompt_tokens: 400, completion_tokens: 100 };
const prices = { m: { inputPerMillionTokens: 500, outputPerMillionTokens: 1000 } };

/**
 * A judge on `server` wired as the service wires it (src/server/scoring-runtime.ts), asked one
 * question whose answer must be `{ ok: true }`: what the ledger spent, and the metrics' lines.
 */
async function failedCall(server: OpenAiCompatibleServer, judge: Record<string, unknown>) {
  const metrics = createServiceMetrics();
  const ledger = createMemorySpendLedger();
  const config = judgeConfigSchema.parse({
    model: 'm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    maxRetries: 0,
    prices,
    ...judge,
  });
  const llm = createLlmContext(config, {
    limits: 'process',
    retries: 'client',
    ledger,
    onCall: event => {
      metrics.judgeCalls.inc({ model: event.model, outcome: event.outcome });
      metrics.judgeTokens.inc({ model: event.model, direction: 'input' }, event.inputTokens);
      metrics.judgeTokens.inc({ model: event.model, direction: 'output' }, event.outputTokens);
      metrics.judgeCostUsd.inc({ model: event.model }, event.costUsd);
    },
  })!;
  const error: unknown = await llm.judge
    .ask({
      model: 'm',
      system: 's',
      user: 'u',
      schemaName: 'ok',
      jsonSchema: {},
      parse: v => {
        if ((v as { ok?: unknown }).ok !== true) throw new Error('ok is not true');
        return v;
      },
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  const counted: Record<string, number> = {};
  for (const line of (await metrics.registry.metrics()).split('\n')) {
    const m = /^(spanscore_judge_(?:calls|tokens|cost_usd)_total\{[^}]*\}) (\S+)$/.exec(line);
    if (m) counted[m[1]!] = Number(m[2]);
  }
  return { error, spent: await ledger.spent(new Date().toISOString().slice(0, 10)), counted };
}

it("a call whose repair the budget refused: the metrics count the first call's tokens and cost, as the ledger does", async () => {
  const server = await startOpenAiCompatibleServer([
    judgeAnswer({ ok: false }, usage),
    judgeAnswer({ ok: true }, usage),
  ]);
  servers.push(server);
  const { error, spent, counted } = await failedCall(server, { dailyBudgetUsd: 0.25 });
  expect(error).toMatchObject({ code: 'SS_JUDGE_BUDGET_EXHAUSTED' });
  expect(server.requests).toHaveLength(1);
  expect(spent).toBeCloseTo(0.3, 12);
  expect(
    counted['spanscore_judge_calls_total{model="m",outcome="SS_JUDGE_BUDGET_EXHAUSTED"}'],
  ).toBe(1);
  expect(counted['spanscore_judge_tokens_total{model="m",direction="input"}']).toBe(400);
  expect(counted['spanscore_judge_tokens_total{model="m",direction="output"}']).toBe(100);
  expect(counted['spanscore_judge_cost_usd_total{model="m"}']).toBeCloseTo(0.3, 12);
});

it('a call whose repair was invalid too: the metrics count both calls, as the ledger does', async () => {
  const server = await startOpenAiCompatibleServer([judgeAnswer({ ok: false }, usage)]);
  servers.push(server);
  const { error, spent, counted } = await failedCall(server, {});
  expect(error).toMatchObject({ code: 'SS_JUDGE_INVALID_OUTPUT' });
  expect(server.requests).toHaveLength(2);
  expect(spent).toBeCloseTo(0.6, 12);
  expect(counted['spanscore_judge_calls_total{model="m",outcome="SS_JUDGE_INVALID_OUTPUT"}']).toBe(
    1,
  );
  expect(counted['spanscore_judge_tokens_total{model="m",direction="input"}']).toBe(800);
  expect(counted['spanscore_judge_tokens_total{model="m",direction="output"}']).toBe(200);
  expect(counted['spanscore_judge_cost_usd_total{model="m"}']).toBeCloseTo(0.6, 12);
});

it('a call whose repair the endpoint failed: the first call is counted', async () => {
  const server = await startOpenAiCompatibleServer([
    judgeAnswer({ ok: false }, usage),
    { status: 503, body: '{"error":{"message":"overloaded"}}' },
  ]);
  servers.push(server);
  const { error, spent, counted } = await failedCall(server, {});
  expect(error).toMatchObject({ code: 'SS_JUDGE_UNAVAILABLE' });
  expect(server.requests).toHaveLength(2);
  expect(spent).toBeCloseTo(0.3, 12);
  expect(counted['spanscore_judge_calls_total{model="m",outcome="SS_JUDGE_UNAVAILABLE"}']).toBe(1);
  expect(counted['spanscore_judge_tokens_total{model="m",direction="input"}']).toBe(400);
  expect(counted['spanscore_judge_tokens_total{model="m",direction="output"}']).toBe(100);
  expect(counted['spanscore_judge_cost_usd_total{model="m"}']).toBeCloseTo(0.3, 12);
});

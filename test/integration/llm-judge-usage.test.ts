import { afterEach, expect, it } from 'vitest';
import { judgeConfigSchema } from '../../src/config/judge-config-schema.js';
import { createLlmContext } from '../../src/judge/create-llm-context.js';
import { createMemorySpendLedger } from '../../src/score/llm/spend-ledger.js';
import { createServiceMetrics } from '../../src/server/service-metrics.js';
import {
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../helpers/openai-compatible-server.js';

const servers: OpenAiCompatibleServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

/** A valid answer whose `usage` holds what a broken or hostile endpoint may send. */
const answerWithUsage = (usage: Record<string, unknown>) => ({
  completion: {
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"ok":true}' } },
    ],
    usage,
  },
});

it("an endpoint's usage that is no token count (negative, a string that is no plain integer) is counted at the ceiling and said, not as 0: a server sending them cannot make its calls free; a plain decimal string is read; metrics and the day's spend count them", async () => {
  const server = await startOpenAiCompatibleServer([
    answerWithUsage({ prompt_tokens: -5000, completion_tokens: 5 }),
    answerWithUsage({ prompt_tokens: 'NaN', completion_tokens: '100' }),
    answerWithUsage({ prompt_tokens: '300', completion_tokens: -1 }),
    // A plain decimal string past the ceiling is counted at it, as a number past it is.
    answerWithUsage({ prompt_tokens: '99999999999', completion_tokens: '1e3' }),
  ]);
  servers.push(server);
  const metrics = createServiceMetrics();
  const ledger = createMemorySpendLedger();
  const config = judgeConfigSchema.parse({
    model: 'm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    maxRetries: 0,
    maxOutputTokens: 500,
    prices: { m: { inputPerMillionTokens: 1, outputPerMillionTokens: 1 } },
    dailyBudgetUsd: 1,
  });
  // As the service wires it (src/server/scoring-runtime.ts).
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
  const ask = (n: number) =>
    llm.judge.ask({
      model: 'm',
      system: 's',
      user: `question ${n}`,
      schemaName: 'ok',
      jsonSchema: {},
      parse: v => v,
    });
  const details = [];
  for (const n of [1, 2, 3, 4]) details.push(await ask(n));
  expect(server.requests).toHaveLength(4);
  // The input ceiling: 3 tokens a character of prompt sent, plus 256 (the same prompt length each
  // time: "question N" and its schema).
  const ceiling = details[0]!.usage.inputTokens;
  expect(ceiling).toBeGreaterThan(256);
  expect(ceiling).toBeLessThan(1000);
  const problem = (field: string, was: string, counted: number, why: string) =>
    `usage.${field} was ${was}, not a count: counted as ${counted}, the most one call can use (${why})`;
  expect(details.map(d => [d.usage.inputTokens, d.usage.outputTokens])).toEqual([
    [ceiling, 5],
    [ceiling, 100],
    [300, 500],
    [ceiling, 500],
  ]);
  const why = /what \d+ characters of prompt can be/.exec(String(details[0]!.usageProblem))![0];
  expect(details.map(d => d.usageProblem)).toEqual([
    `the endpoint's ${problem('prompt_tokens', '-5000', ceiling, why)}`,
    `the endpoint's ${problem('prompt_tokens', '"NaN"', ceiling, why)}`,
    `the endpoint's ${problem('completion_tokens', '-1', 500, 'judge.maxOutputTokens')}`,
    `the endpoint's usage.prompt_tokens was 99999999999, more than the ${ceiling} tokens one call can use (${why}): counted as ${ceiling}; ${problem('completion_tokens', '"1e3"', 500, 'judge.maxOutputTokens')}`,
  ]);
  // Every token counted is charged: $1 a million tokens either way.
  const tokens = details.reduce((n, d) => n + d.usage.inputTokens + d.usage.outputTokens, 0);
  expect(tokens).toBe(3 * ceiling + 300 + 5 + 100 + 500 + 500);
  const day = new Date().toISOString().slice(0, 10);
  expect(await ledger.spent(day)).toBeCloseTo(tokens / 1e6, 12);
  expect(details.reduce((usd, d) => usd + (d.costUsd ?? 0), 0)).toBeCloseTo(tokens / 1e6, 12);
  const exposition = await metrics.registry.metrics();
  const judgeLines = exposition
    .split('\n')
    .filter(line => /^spanscore_judge_(tokens|cost_usd)_total\{/.test(line));
  expect(judgeLines.slice(0, 2)).toEqual([
    `spanscore_judge_tokens_total{model="m",direction="input"} ${3 * ceiling + 300}`,
    `spanscore_judge_tokens_total{model="m",direction="output"} ${5 + 100 + 500 + 500}`,
  ]);
  expect(Number(judgeLines[2]!.split(' ')[1])).toBeCloseTo(tokens / 1e6, 12);
});

it("an endpoint's counts past what one call can use (1e300 tokens) are counted at the ceiling and said, and leave the day's budget to later calls", async () => {
  const huge = { prompt_tokens: 1e300, completion_tokens: 1e300, total_tokens: 1e300 };
  const server = await startOpenAiCompatibleServer([answerWithUsage(huge)]);
  servers.push(server);
  const { ask, spent: spentToday } = meteredJudge(server);
  const answers = [await ask(1), await ask(2), await ask(3)];
  expect(server.requests).toHaveLength(3);
  for (const answer of answers) {
    // The output at judge.maxOutputTokens; the input at most a few tokens a character sent, well
    // under a thousand for these few characters (the prompt sent is about 80 characters).
    expect(answer.usage.outputTokens).toBe(500);
    expect(answer.usage.inputTokens).toBeGreaterThan(0);
    expect(answer.usage.inputTokens).toBeLessThan(1000);
    expect(answer.usageProblem).toMatch(
      /^the endpoint's usage\.prompt_tokens was 1e\+300, more than the \d+ tokens one call can use \(what \d+ characters of prompt can be\): counted as \d+; usage\.completion_tokens was 1e\+300, more than the 500 tokens one call can use \(judge\.maxOutputTokens\): counted as 500$/,
    );
  }
  const spent = await spentToday();
  expect(spent).toBeCloseTo(
    answers.reduce((usd, a) => usd + (a.usage.inputTokens + a.usage.outputTokens) / 1e6, 0),
    12,
  );
  expect(spent).toBeLessThan(0.01);
});

/** A judge whose calls cost $1 a million tokens either way, with a daily budget of $1, on `server`. */
function meteredJudge(server: OpenAiCompatibleServer) {
  const ledger = createMemorySpendLedger();
  const config = judgeConfigSchema.parse({
    model: 'm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    maxRetries: 0,
    maxOutputTokens: 500,
    prices: { m: { inputPerMillionTokens: 1, outputPerMillionTokens: 1 } },
    dailyBudgetUsd: 1,
  });
  const llm = createLlmContext(config, { limits: 'process', retries: 'client', ledger })!;
  const ask = (n: number) =>
    llm.judge.ask({
      model: 'm',
      system: 's',
      user: `question ${n}`,
      schemaName: 'ok',
      jsonSchema: {},
      parse: v => v,
    });
  const spent = () => ledger.spent(new Date().toISOString().slice(0, 10));
  return { ask, spent };
}

it("an infinite token count (JSON 1e309) is counted at the ceiling and said, not as 0: the day's spend counts it", async () => {
  const server = await startOpenAiCompatibleServer([
    // 1e309 is JSON for a number no double holds: JSON.parse reads it as Infinity.
    {
      status: 200,
      body: '{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\\"ok\\":true}"}}],"usage":{"prompt_tokens":1e309,"completion_tokens":1e309}}',
    },
  ]);
  servers.push(server);
  const judge = meteredJudge(server);
  const answer = await judge.ask(1);
  expect(server.requests).toHaveLength(1);
  // The output at judge.maxOutputTokens (500); the input at the prompt's ceiling, 3 tokens a
  // character sent plus 256: more than 256, under a thousand for these few characters.
  expect(answer.usage.outputTokens).toBe(500);
  expect(answer.usage.inputTokens).toBeGreaterThan(256);
  expect(answer.usage.inputTokens).toBeLessThan(1000);
  expect(answer.usageProblem).toMatch(
    /^the endpoint's usage\.prompt_tokens was Infinity, more than the \d+ tokens one call can use \(what \d+ characters of prompt can be\): counted as \d+; usage\.completion_tokens was Infinity, more than the 500 tokens one call can use \(judge\.maxOutputTokens\): counted as 500$/,
  );
  expect(await judge.spent()).toBeCloseTo((answer.usage.inputTokens + 500) / 1e6, 12);
});

it('a server that sends only usage.total_tokens has them counted, output first up to judge.maxOutputTokens, and said', async () => {
  const server = await startOpenAiCompatibleServer([
    answerWithUsage({ total_tokens: 300 }),
    answerWithUsage({ total_tokens: 700 }),
    // The input given: the rest of the total is output.
    answerWithUsage({ prompt_tokens: 200, total_tokens: 260 }),
    // Both given: the total is not read.
    answerWithUsage({ prompt_tokens: 200, completion_tokens: 60, total_tokens: 9999 }),
  ]);
  servers.push(server);
  const judge = meteredJudge(server);
  const answers = [];
  for (const n of [1, 2, 3, 4]) answers.push(await judge.ask(n));
  expect(answers.map(a => a.usage)).toEqual([
    { inputTokens: 0, outputTokens: 300 },
    { inputTokens: 200, outputTokens: 500 },
    { inputTokens: 200, outputTokens: 60 },
    { inputTokens: 200, outputTokens: 60 },
  ]);
  expect(answers.map(a => a.usageProblem)).toEqual([
    "the endpoint's usage.total_tokens was 300 without usage.prompt_tokens or usage.completion_tokens: 300 of it counted as output and 0 as input tokens (output first, up to judge.maxOutputTokens)",
    "the endpoint's usage.total_tokens was 700 without usage.prompt_tokens or usage.completion_tokens: 500 of it counted as output and 200 as input tokens (output first, up to judge.maxOutputTokens)",
    "the endpoint's usage.total_tokens was 260 without usage.completion_tokens: 60 of it counted as output and 0 as input tokens (output first, up to judge.maxOutputTokens)",
    undefined,
  ]);
  // 300 + 700 + 260 + 260 tokens at $1 a million.
  expect(await judge.spent()).toBeCloseTo(1520 / 1e6, 12);
});

import { afterEach, expect, it } from 'vitest';
import { judgeConfigSchema } from '../../src/config/judge-config-schema.js';
import { createLlmContext } from '../../src/judge/create-llm-context.js';
import { createRubricScorer } from '../../src/score/llm/rubric.js';
import { createMemorySpendLedger } from '../../src/score/llm/spend-ledger.js';
import { runScorers } from '../../src/score/run-scorers.js';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../helpers/openai-compatible-server.js';
import { agentTrace } from '../helpers/trace-builder.js';

const servers: OpenAiCompatibleServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

it('a repair is checked against the daily budget: a first call that spent it has its repair refused, and the result says the budget was why and what the paid first answer was', async () => {
  const usage = { prompt_tokens: 400, completion_tokens: 100 };
  const server = await startOpenAiCompatibleServer([
    // Off the scorer's range 1 to 5: invalid, so the judge would ask for a repair.
    judgeAnswer({ score: 99, explanation: 'out of range' }, usage),
    judgeAnswer({ score: 4, explanation: 'fine' }, usage),
  ]);
  servers.push(server);
  const ledger = createMemorySpendLedger();
  const config = judgeConfigSchema.parse({
    model: 'm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    maxRetries: 0,
    // 400 input tokens at $500/M + 100 output tokens at $1000/M = $0.30 a call.
    prices: { m: { inputPerMillionTokens: 500, outputPerMillionTokens: 1000 } },
    dailyBudgetUsd: 0.25,
  });
  const llm = createLlmContext(config, { limits: 'process', retries: 'client', ledger })!;
  const scorer = createRubricScorer(llm.judge, 'm');
  const [outcome] = await runScorers(
    agentTrace(['weather']),
    undefined,
    [{ scorer, options: scorer.parseOptions({ criteria: 'c', min: 1, max: 5 }) }],
    new Map(),
  );
  // The first call only: the repair was not sent.
  expect(server.requests).toHaveLength(1);
  expect(await ledger.spent(new Date().toISOString().slice(0, 10))).toBeCloseTo(0.3, 10);
  expect(outcome!.result).toEqual({
    status: 'skipped',
    reason: expect.stringMatching(
      /^the repair of an invalid answer was not asked \(its first call was paid\): the judge's daily budget of \$0\.25 is spent \(\$0\.3000 on \d{4}-\d\d-\d\d UTC\); LLM scorers are skipped until 00:00 UTC\. Its first answer was received and paid for \(400 input and 100 output tokens, from judge-model-2026\) but could not be used: it does not match the rubric schema: .*\b99\b/,
    ),
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { judgeConfigSchema } from '../../src/config/judge-config-schema.js';
import { createLlmContext } from '../../src/judge/create-llm-context.js';
import { createRubricScorer } from '../../src/score/llm/rubric.js';
import { runScorers } from '../../src/score/run-scorers.js';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
  type ScriptedReply,
} from '../helpers/openai-compatible-server.js';
import { agentTrace } from '../helpers/trace-builder.js';

const servers: OpenAiCompatibleServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

/** OpenAI's answer, word for word, to `max_tokens` sent to a reasoning model (o-series, gpt-5). */
const MAX_TOKENS_REFUSED: ScriptedReply = {
  status: 400,
  body: JSON.stringify({
    error: {
      message:
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      type: 'invalid_request_error',
      param: 'max_tokens',
      code: 'unsupported_parameter',
    },
  }),
};

/** The same refusal of `max_completion_tokens`, as an endpoint that reads only `max_tokens` may say. */
const MAX_COMPLETION_TOKENS_REFUSED: ScriptedReply = {
  status: 400,
  body: JSON.stringify({
    error: {
      message: "Unsupported parameter: 'max_completion_tokens' is not supported with this model.",
      type: 'invalid_request_error',
      param: 'max_completion_tokens',
      code: 'unsupported_parameter',
    },
  }),
};

/** An answer stopped at the output token bound: its JSON cut short, `finish_reason: 'length'`. */
const CUT_ANSWER: ScriptedReply = {
  completion: {
    id: 'chatcmpl-cut',
    object: 'chat.completion',
    created: 1,
    model: 'judge-model-2026',
    choices: [
      {
        index: 0,
        finish_reason: 'length',
        message: {
          role: 'assistant',
          content: '{"score": 4, "explanation": "The agent called the',
        },
      },
    ],
    usage: { prompt_tokens: 300, completion_tokens: 64, total_tokens: 364 },
  },
};

/** Scores one trace with the rubric scorer on a judge at `server`, `judge` config on top. */
async function rubricOutcome(
  server: OpenAiCompatibleServer,
  judge: Record<string, unknown> = {},
  log?: (line: string) => void,
) {
  const config = judgeConfigSchema.parse({
    model: 'm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    maxRetries: 0,
    ...judge,
  });
  const llm = createLlmContext(config, {
    limits: 'process',
    retries: 'client',
    ...(log && { log }),
  })!;
  const scorer = createRubricScorer(llm.judge, 'm');
  // Each criteria its own question: the judge's cache answers a question asked again.
  const score = async (criteria = 'c') => {
    const options = scorer.parseOptions({ criteria, min: 1, max: 5 });
    return (
      await runScorers(agentTrace(['weather']), undefined, [{ scorer, options }], new Map())
    )[0]!.result;
  };
  return { score };
}

describe('an endpoint that refuses the max-tokens field', () => {
  it("OpenAI's 400 for max_tokens: the call is asked again once with max_completion_tokens, still in structured output, and scored; later calls send max_completion_tokens at once", async () => {
    const server = await startOpenAiCompatibleServer([
      MAX_TOKENS_REFUSED,
      judgeAnswer({ score: 4, explanation: 'fine' }),
    ]);
    servers.push(server);
    const lines: string[] = [];
    const { score } = await rubricOutcome(server, {}, line => lines.push(line));

    expect(await score()).toMatchObject({ status: 'scored', score: 0.75 });
    expect(server.requests).toHaveLength(2);
    const [refused, again] = server.requests;
    expect(refused!.max_tokens).toBe(1024);
    expect(again!.max_completion_tokens).toBe(1024);
    expect(again).not.toHaveProperty('max_tokens');
    // Structured output was not taken for refused: both asked with the schema.
    expect(refused!.response_format).toMatchObject({ type: 'json_schema' });
    expect(again!.response_format).toMatchObject({ type: 'json_schema' });

    expect(await score('another')).toMatchObject({ status: 'scored' });
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.max_completion_tokens).toBe(1024);
    expect(server.requests[2]).not.toHaveProperty('max_tokens');
    expect(server.requests[2]!.response_format).toMatchObject({ type: 'json_schema' });

    // Said once, naming the key that makes the first request right.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/max_completion_tokens/);
    expect(lines[0]).toMatch(/judge\.maxTokensParameter/);
  });

  it('both fields refused: two requests, no plain-mode fallback, a failed result that names judge.maxTokensParameter and is not retried', async () => {
    const server = await startOpenAiCompatibleServer([
      MAX_TOKENS_REFUSED,
      MAX_COMPLETION_TOKENS_REFUSED,
    ]);
    servers.push(server);
    const { score } = await rubricOutcome(server);

    const result = await score();
    expect(server.requests).toHaveLength(2);
    expect(server.requests.every(r => r.response_format !== undefined)).toBe(true);
    expect(result).toMatchObject({
      status: 'failed',
      errorType: 'SS_USAGE',
      error: expect.stringMatching(/judge\.maxTokensParameter/),
    });
    // Structured output is still on for the next call.
    await score('another');
    expect(server.requests[2]!.response_format).toMatchObject({ type: 'json_schema' });
  });
  it("an endpoint's refusal of 100,000 characters is quoted cut to 500, saying its length", async () => {
    const message = `max_tokens: ${'x'.repeat(100_000)}`;
    const refusal: ScriptedReply = {
      status: 400,
      body: JSON.stringify({ error: { message, type: 'invalid_request_error' } }),
    };
    const server = await startOpenAiCompatibleServer([refusal]);
    servers.push(server);
    const { score } = await rubricOutcome(server);

    const result = await score();
    expect(server.requests).toHaveLength(2);
    // The client's message is "400 " and the endpoint's: 100,016 characters, quoted twice.
    expect(result).toMatchObject({
      errorType: 'SS_USAGE',
      error: expect.stringContaining(`… (${4 + message.length} characters)`),
    });
    expect((result as { error: string }).error.length).toBeLessThan(2 * 500 + 500);
  });
});

describe('an answer cut at judge.maxOutputTokens (finish_reason length)', () => {
  it('is not repaired (it would be cut the same way): one request, and the reason names judge.maxOutputTokens and its value', async () => {
    const server = await startOpenAiCompatibleServer([
      CUT_ANSWER,
      judgeAnswer({ score: 4, explanation: 'fine' }),
    ]);
    servers.push(server);
    const { score } = await rubricOutcome(server, { maxOutputTokens: 64 });

    const result = await score();
    expect(server.requests).toHaveLength(1);
    expect(result).toMatchObject({
      status: 'failed',
      errorType: 'SS_JUDGE_INVALID_OUTPUT',
      error: expect.stringMatching(/judge\.maxOutputTokens \(64\).*Not repaired/),
    });
  });

  it('a repair cut so says so too', async () => {
    const server = await startOpenAiCompatibleServer([
      judgeAnswer({ score: 99, explanation: 'out of range' }),
      CUT_ANSWER,
    ]);
    servers.push(server);
    const { score } = await rubricOutcome(server, { maxOutputTokens: 64 });

    const result = await score();
    expect(server.requests).toHaveLength(2);
    expect(result).toMatchObject({
      status: 'failed',
      errorType: 'SS_JUDGE_INVALID_OUTPUT',
      error: expect.stringMatching(
        /^the judge's answer to the repair attempt was stopped at judge\.maxOutputTokens \(64\)/,
      ),
    });
  });
});

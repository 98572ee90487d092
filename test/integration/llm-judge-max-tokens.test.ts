import { afterEach, describe, expect, it } from 'vitest';
import { judgeConfigSchema } from '../../src/config/judge-config-schema.js';
import { createLlmContext } from '../../src/judge/create-llm-context.js';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../helpers/openai-compatible-server.js';

const servers: OpenAiCompatibleServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

/** The request bodies one judge call sent, with `judge` config on top of a working endpoint. */
async function requestsOf(judge: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
  const server = await startOpenAiCompatibleServer([judgeAnswer({ ok: true })]);
  servers.push(server);
  const config = judgeConfigSchema.parse({
    model: 'm',
    baseUrl: server.baseURL,
    apiKey: 'k',
    maxRetries: 0,
    ...judge,
  });
  const llm = createLlmContext(config, { limits: 'process', retries: 'client' })!;
  await llm.judge.ask({
    model: 'm',
    system: 's',
    user: 'u',
    schemaName: 'ok',
    jsonSchema: {},
    parse: v => v,
  });
  return server.requests;
}

describe('judge.maxOutputTokens is sent with each call, in judge.maxTokensParameter', () => {
  it('by default as max_tokens: 1024, the field Ollama and vLLM read', async () => {
    const [request, ...more] = await requestsOf({});
    expect(more).toHaveLength(0);
    expect(request!.max_tokens).toBe(1024);
    expect(request).not.toHaveProperty('max_completion_tokens');
  });

  it('as max_completion_tokens when configured so, and no max_tokens', async () => {
    const [request] = await requestsOf({
      maxOutputTokens: 300,
      maxTokensParameter: 'max_completion_tokens',
    });
    expect(request!.max_completion_tokens).toBe(300);
    expect(request).not.toHaveProperty('max_tokens');
  });

  it('in the repair call too', async () => {
    const server = await startOpenAiCompatibleServer([
      judgeAnswer({ wrong: true }),
      judgeAnswer({ ok: true }),
    ]);
    servers.push(server);
    const config = judgeConfigSchema.parse({
      model: 'm',
      baseUrl: server.baseURL,
      apiKey: 'k',
      maxRetries: 0,
      maxOutputTokens: 77,
    });
    const llm = createLlmContext(config, { limits: 'process', retries: 'client' })!;
    await llm.judge.ask({
      model: 'm',
      system: 's',
      user: 'u',
      schemaName: 'ok',
      jsonSchema: {},
      parse: v => {
        if (!(v as { ok?: boolean }).ok) throw new Error('no ok');
        return v;
      },
    });
    expect(server.requests.map(r => r.max_tokens)).toEqual([77, 77]);
  });

  it('is validated where the config is read: a count of 0 or past 1,000,000, or another field name, is refused naming the key', () => {
    for (const judge of [
      { maxOutputTokens: 0 },
      { maxOutputTokens: 1_000_001 },
      { maxOutputTokens: 2.5 },
      { maxTokensParameter: 'max_output_tokens' },
    ]) {
      const parsed = judgeConfigSchema.safeParse(judge);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path).toEqual([Object.keys(judge)[0]]);
    }
  });
});

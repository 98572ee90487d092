import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isSpanscoreError } from '../../src/errors/spanscore-error.js';
import { createOpenAiJudge } from '../../src/judge/openai-judge.js';
import { classifyFailure } from '../../src/queue/classify-failure.js';
import { createRubricScorer } from '../../src/score/llm/rubric.js';
import { runScorers } from '../../src/score/run-scorers.js';
import { readBody, textCompletion } from '../helpers/openai-compatible-server.js';
import { agentTrace } from '../helpers/trace-builder.js';

/**
 * An OpenAI-compatible endpoint that answers every request with `reply`, over real HTTP, and
 * counts the bytes of each request body it received and of each answer it wrote.
 */
async function hostileEndpoint(reply: (res: ServerResponse) => void) {
  const received: number[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(body => {
      received.push(Buffer.byteLength(body));
      reply(res);
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received };
}
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map(close => close()));
});

/** A chat completion whose message content is `content`, as JSON text. */
const completion = (content: string) =>
  JSON.stringify(textCompletion('judge-model', content).completion);

async function rubricAgainst(baseURL: string, timeoutMs = 60_000) {
  const scorer = createRubricScorer(
    createOpenAiJudge({ baseURL, apiKey: 'k', maxRetries: 0, timeoutMs }),
    'judge-model',
  );
  const [outcome] = await runScorers(
    agentTrace(['search'], { user: 'q', answer: 'a' }),
    { id: 'tc', scorers: [] },
    [{ scorer, options: scorer.parseOptions({ criteria: 'c' }) }],
    new Map(),
  );
  return outcome!.result;
}

describe("a judge endpoint's answers are bounded where they are read", () => {
  it('a 50 MB answer, sent in chunks without a length, is not read past 4 MiB nor sent back in a repair', async () => {
    const content = 'not json '.repeat((50 * 1024 * 1024) / 9);
    const body = Buffer.from(completion(content));
    let written = 0;
    const endpoint = await hostileEndpoint(res => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const write = (): void => {
        while (written < body.length && !res.destroyed) {
          const chunk = body.subarray(written, written + 64 * 1024);
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        if (!res.destroyed) res.end();
      };
      res.on('close', () => (written = Math.min(written, body.length)));
      write();
    });
    const result = await rubricAgainst(endpoint.baseURL);
    expect(result).toMatchObject({ status: 'failed', errorType: 'SS_JUDGE_UNAVAILABLE' });
    expect(result.status === 'failed' && result.error).toMatch(
      /^the judge endpoint's answer is larger than 4194304 bytes \(\d+ bytes read; judge.maxResponseBytes\): not read past it$/,
    );
    // One request, no repair carrying the answer back.
    expect(endpoint.received).toHaveLength(1);
    expect(written).toBeLessThan(body.length);
  });

  it("a 503 whose error message is 1 MB is quoted cut, not whole, in the result's error", async () => {
    const message = 'overloaded '.repeat(100_000);
    const endpoint = await hostileEndpoint(res => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'server_error' } }));
    });
    const result = await rubricAgainst(endpoint.baseURL);
    expect(result).toMatchObject({ status: 'failed', errorType: 'SS_JUDGE_UNAVAILABLE' });
    const error = result.status === 'failed' ? result.error : '';
    expect(error).toMatch(/^the judge endpoint answered 503 after retries: .*overloaded/);
    expect(error).toMatch(/… \(1\d{6} characters\)$/); // the client prefixes the status
    expect(error.length).toBeLessThan(700); // 1,100,000 characters before
  });

  it('an answer that declares a length past the bound is refused before its body is read', async () => {
    const endpoint = await hostileEndpoint(res => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(50 * 1024 * 1024),
      });
      res.write('{');
    });
    const result = await rubricAgainst(endpoint.baseURL);
    expect(result.status === 'failed' && result.error).toBe(
      "the judge endpoint's answer is larger than 4194304 bytes (content-length 52428800; judge.maxResponseBytes): not read past it",
    );
  });

  it('an answer trickled a byte at a time ends at judge.timeoutMs, its last byte included', async () => {
    const body = completion(JSON.stringify({ score: 5, explanation: 'fine' }));
    let sent = 0;
    const endpoint = await hostileEndpoint(res => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // About 8 s for the whole answer: a byte each 25 ms.
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        res.write(body[sent++]!);
        if (sent === body.length) {
          clearInterval(timer);
          res.end();
        }
      }, 25);
      res.on('close', () => clearInterval(timer));
    });
    const result = await rubricAgainst(endpoint.baseURL, 1000);
    expect(result).toMatchObject({
      status: 'failed',
      errorType: 'SS_JUDGE_UNAVAILABLE',
      error: "the judge endpoint's answer did not arrive whole within 1000 ms (judge.timeoutMs)",
    });
    expect(sent).toBeLessThan(body.length);
  }, 20_000);
});

describe("an answer's content that is not text", () => {
  it.each([
    [{ score: 5, explanation: 'As an object.' }, 'scored', 1],
    [12345, 'failed', 2],
  ])('%j is read as its JSON: %s after %i request(s)', async (content, status, requests) => {
    const endpoint = await hostileEndpoint(res => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: 'judge-model',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
        }),
      );
    });
    const result = await rubricAgainst(endpoint.baseURL);
    expect(result.status).toBe(status);
    if (result.status === 'failed') expect(result.errorType).toBe('SS_JUDGE_INVALID_OUTPUT');
    expect(endpoint.received).toHaveLength(requests);
  });
});

describe('a Retry-After is followed for 60 s at most', () => {
  it.each([
    ['retry-after', 'Fri, 31 Dec 9999 23:59:59 GMT', 60],
    ['retry-after', '99999999', 60],
    ['retry-after-ms', '1e12', 60],
    ['retry-after', '-5', 0],
    ['retry-after', '7', 7],
  ])('%s: %s → %i s', async (header, value, seconds) => {
    const endpoint = await hostileEndpoint(res => {
      res
        .writeHead(429, { 'content-type': 'application/json', [header]: value })
        .end('{"error":{"message":"slow down"}}');
    });
    const judge = createOpenAiJudge({ baseURL: endpoint.baseURL, apiKey: 'k', maxRetries: 0 });
    const error: unknown = await judge
      .ask({
        model: 'm',
        system: 's',
        user: 'u',
        schemaName: 'x',
        jsonSchema: {},
        parse: v => v,
      })
      .catch((e: unknown) => e);
    expect(isSpanscoreError(error) && error.code).toBe('SS_JUDGE_RATE_LIMITED');
    // What the openai client itself sleeps for when it retries.
    const cause = (error as { cause: { headers: Headers } }).cause;
    expect([cause.headers.get('retry-after'), cause.headers.get('retry-after-ms')]).toEqual([
      String(seconds),
      null,
    ]);
    // What the judge queue pauses for.
    expect(classifyFailure(error)).toEqual({
      action: 'rate_limited',
      pauseMs: Math.max(seconds * 1000, 1),
    });
  });
});

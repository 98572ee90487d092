/**
 * A local server speaking the Gemini API's `generateContent` (and its SSE stream form) from a
 * scenario's script, for frameworks whose model client is `@google/genai` (Google ADK). The client
 * reaches it through `GOOGLE_GEMINI_BASE_URL`, as `@google/genai` documents for proxies. Function
 * calls carry the scenario's call ids in `functionCall.id`, which the Gemini API schema allows.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../test/helpers/openai-compatible-server.js';
/** What the server answers from: a scenario's model turns (tool calls), then its answer. */
export interface GeminiScript {
  turns: ReadonlyArray<ReadonlyArray<{ id: string; name: string; arguments: unknown }>>;
  answer: string;
}

export interface ScriptedGeminiServer {
  baseURL: string;
  /** Every request body received, in order. */
  requests: unknown[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1: the scenario's turns in order, then its answer. */
export async function scriptedGeminiServer(
  scenario: GeminiScript,
  model: string,
): Promise<ScriptedGeminiServer> {
  const replies = [
    ...scenario.turns.map(calls =>
      calls.map(c => ({ functionCall: { id: c.id, name: c.name, args: c.arguments } })),
    ),
    [{ text: scenario.answer }],
  ];
  const requests: unknown[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    void readBody(req).then(body => {
      const stream = req.url?.includes(':streamGenerateContent') ?? false;
      if (req.method !== 'POST' || !(stream || req.url?.includes(':generateContent'))) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404}}');
        return;
      }
      requests.push(JSON.parse(body) as unknown);
      const parts = replies[Math.min(next++, replies.length - 1)]!;
      const response = {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 52, candidatesTokenCount: 17, totalTokenCount: 69 },
        modelVersion: model,
        responseId: `scripted-${next}`,
      };
      if (stream)
        res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(`data: ${JSON.stringify(response)}\r\n\r\n`);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  };
}

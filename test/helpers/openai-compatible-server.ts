import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted reply: a chat completion body, or a raw status/body/headers/delay. */
export type ScriptedReply =
  | { completion: Record<string, unknown> }
  | { status: number; body: string; headers?: Record<string, string>; delayMs?: number };

/** A reply worked out from the request's body (e.g. one evaluation per call the prompt shows). */
export type ReplyFor = (request: Record<string, unknown>) => ScriptedReply;

/** A local OpenAI-compatible `/v1/chat/completions` server that answers from a script. */
export interface OpenAiCompatibleServer {
  baseURL: string;
  /** Every request body received, in order. */
  requests: Array<Record<string, unknown>>;
  /** When each request arrived (`Date.now()`), in order. */
  times: number[];
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 on a free port. Replies are taken from `script` in order; when it
 * runs out, the last reply repeats; a function reply is called with the request's body. Real HTTP, so the real `openai` client talks to it unchanged.
 * A request with `stream: true` gets a scripted completion as server-sent events (see
 * {@link streamEvents}).
 */
export async function startOpenAiCompatibleServer(
  script: Array<ScriptedReply | ReplyFor>,
): Promise<OpenAiCompatibleServer> {
  const requests: Array<Record<string, unknown>> = [];
  const times: number[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    void readBody(req).then(body => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"message":"not found"}}');
        return;
      }
      const request = JSON.parse(body) as Record<string, unknown>;
      requests.push(request);
      times.push(Date.now());
      const scripted = script[Math.min(next++, script.length - 1)]!;
      const reply = typeof scripted === 'function' ? scripted(request) : scripted;
      const send = (): void => {
        if ('completion' in reply && request.stream === true) {
          res
            .writeHead(200, { 'content-type': 'text/event-stream' })
            .end(streamEvents(reply.completion));
        } else if ('completion' in reply) {
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(reply.completion));
        } else {
          res
            .writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
            .end(reply.body);
        }
      };
      if ('delayMs' in reply && reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    times,
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  };
}

/**
 * A chat completion as the `chat.completion.chunk` events OpenAI streams: the role, the text, each
 * tool call in its own chunks (id and name first, then the arguments, keyed by `index`), the
 * finish reason, the usage, then `[DONE]`.
 */
function streamEvents(completion: Record<string, unknown>): string {
  const choice = (completion.choices as Array<Record<string, unknown>>)[0]!;
  const message = choice.message as Record<string, unknown>;
  const calls = (message.tool_calls as ToolCallMessage[] | undefined) ?? [];
  const chunk = (
    delta: Record<string, unknown> | undefined,
    extra: Record<string, unknown> = {},
  ) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: delta ? [{ index: 0, delta, finish_reason: null }] : [],
    ...extra,
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (typeof message.content === 'string' && message.content !== '')
    events.push(chunk({ content: message.content }));
  calls.forEach((c, index) => {
    events.push(
      chunk({
        tool_calls: [
          { index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] }),
    );
  });
  events.push({
    ...chunk(undefined),
    choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason }],
  });
  events.push(chunk(undefined, { usage: completion.usage }));
  return `${events.map(e => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}

interface ToolCallMessage {
  id: string;
  function: { name: string; arguments: string };
}

/** A chat completion whose message asks for tool calls. */
export function toolCallCompletion(
  model: string,
  calls: Array<{ id: string; name: string; arguments: unknown }>,
): { completion: Record<string, unknown> } {
  return {
    completion: {
      id: `chatcmpl-${calls.map(c => c.id).join('-')}`,
      object: 'chat.completion',
      created: 1_767_225_600,
      model,
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: calls.map(c => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          },
        },
      ],
      usage: { prompt_tokens: 52, completion_tokens: 17, total_tokens: 69 },
    },
  };
}

/** A judge's answer: `body` as the message's JSON content, from `judge-model-2026`, with usage. */
export function judgeAnswer(
  body: object,
  usage = { prompt_tokens: 321, completion_tokens: 45 },
): { completion: Record<string, unknown> } {
  return {
    completion: {
      id: 'chatcmpl-judge',
      object: 'chat.completion',
      created: 1,
      model: 'judge-model-2026',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          message: { role: 'assistant', content: JSON.stringify(body) },
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
}

/** A chat completion with a plain text answer. */
export function textCompletion(
  model: string,
  text: string,
): { completion: Record<string, unknown> } {
  return {
    completion: {
      id: 'chatcmpl-text',
      object: 'chat.completion',
      created: 1_767_225_601,
      model,
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }],
      usage: { prompt_tokens: 80, completion_tokens: 12, total_tokens: 92 },
    },
  };
}

/** The request's body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A chat request as the judge sends it. */
export type ChatRequest = { messages: Array<{ role: string; content: string }> };

/** A chat request's user message (the second: the judge sends its instructions first). */
export const userMessage = (request: Record<string, unknown>): string =>
  (request as ChatRequest).messages[1]!.content;

/** The calls a prompt shows, as the judge reads them: `N. name(` lines of its tool_calls block. */
export function callLines(request: Record<string, unknown>): number {
  const block = /<tool_calls>\n([\s\S]*)\n<\/tool_calls>/.exec(userMessage(request))![1]!;
  return block.split('\n').filter(line => /^\d+\. /.test(line)).length;
}

/** A `tool_call_appropriateness` judge that gives one verdict (appropriate) per call the prompt shows. */
export const verdictPerCall: ReplyFor = request =>
  judgeAnswer({
    evaluations: Array.from({ length: callLines(request) }, (_, i) => ({
      toolCalled: `t${i}`,
      wasAppropriate: true,
      reasoning: 'r',
    })),
    missingTools: [],
    clarificationWasAppropriate: false,
    reason: 'Every call served the request.',
  });

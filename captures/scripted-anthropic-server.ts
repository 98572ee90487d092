/**
 * A local server speaking Anthropic's Messages API (`POST /v1/messages`, non-streaming) from a
 * scenario's script, for captures whose model client is `@anthropic-ai/sdk`: each tool turn is an
 * assistant message of `tool_use` blocks carrying the scenario's call ids (`stop_reason:
 * tool_use`), then the answer as a `text` block (`end_turn`). A request with `stream: true` gets
 * the same message as the Messages API's server-sent events. Requests are kept for the capture to
 * check that the tool results came back as `tool_result` blocks.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from '../test/helpers/openai-compatible-server.js';
import type { Scenario } from './scenarios.js';

export interface ScriptedAnthropicServer {
  /** The SDK's `baseURL` (it appends `/v1/messages`). */
  baseURL: string;
  /** Every request body received, in order. */
  requests: unknown[];
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1: the scenario's turns in order, then its answer. */
export async function scriptedAnthropicServer(
  scenario: Scenario,
  model: string,
): Promise<ScriptedAnthropicServer> {
  const replies = [
    ...scenario.turns.map(calls => ({
      content: calls.map(c => ({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments })),
      stop_reason: 'tool_use',
    })),
    { content: [{ type: 'text', text: scenario.answer }], stop_reason: 'end_turn' },
  ];
  const requests: unknown[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    void readBody(req).then(body => {
      if (req.method !== 'POST' || req.url !== '/v1/messages') {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"type":"error","error":{"type":"not_found_error","message":"not found"}}');
        return;
      }
      const request = JSON.parse(body) as { stream?: boolean };
      requests.push(request);
      const reply = replies[Math.min(next++, replies.length - 1)]!;
      const message = {
        id: `msg_scripted_${next}`,
        type: 'message',
        role: 'assistant',
        model,
        ...reply,
        stop_sequence: null,
        usage: { input_tokens: 52, output_tokens: 17 },
      };
      if (request.stream === true)
        res
          .writeHead(200, { 'content-type': 'text/event-stream', 'request-id': `req_${next}` })
          .end(messageEvents(message));
      else
        res
          .writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${next}` })
          .end(JSON.stringify(message));
    });
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  };
}

interface ScriptedMessage {
  content: Array<{ type: string; text?: string; input?: unknown }>;
  stop_reason: string;
  usage: { input_tokens: number; output_tokens: number };
}

/**
 * A message as the Messages API streams it: `message_start` (no content yet), each block as
 * `content_block_start` (a `tool_use` with empty input, or empty text), one delta (the input as
 * `input_json_delta`, the text as `text_delta`) and `content_block_stop`, then `message_delta`
 * with the stop reason and `message_stop`.
 */
function messageEvents(message: ScriptedMessage): string {
  const events: Array<[string, unknown]> = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          usage: { ...message.usage, output_tokens: 1 },
        },
      },
    ],
  ];
  message.content.forEach((block, index) => {
    const text = block.type === 'text';
    events.push(
      [
        'content_block_start',
        {
          type: 'content_block_start',
          index,
          content_block: text ? { type: 'text', text: '' } : { ...block, input: {} },
        },
      ],
      [
        'content_block_delta',
        {
          type: 'content_block_delta',
          index,
          delta: text
            ? { type: 'text_delta', text: block.text }
            : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
        },
      ],
      ['content_block_stop', { type: 'content_block_stop', index }],
    );
  });
  events.push(
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: message.usage.output_tokens },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  );
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

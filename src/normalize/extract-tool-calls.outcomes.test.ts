import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import {
  otlpRequest,
  spanId,
  traceId,
  type AttrInput,
  type SpanInput,
} from '../../test/helpers/otlp-json-builder.js';
import { extractToolCalls } from './extract-tool-calls.js';
import type { ToolCall } from './tool-call.js';

const T = traceId(7);
const S = (n: number): string => spanId(7, n);
type Span = Omit<SpanInput, 'traceId'>;

const calls = (...spans: Span[]): ToolCall[] =>
  extractToolCalls(decodeOtlpJson(otlpRequest(spans.map(s => ({ traceId: T, ...s })))).spans);
const outcomes = (...spans: Span[]): Array<[string, string]> =>
  calls(...spans).map(c => [c.name, c.outcome]);

const span = (n: number, name: string, attributes: Record<string, AttrInput>, more = {}): Span => ({
  spanId: S(n),
  name,
  startMs: n * 10,
  endMs: n * 10 + 5,
  attributes,
  ...more,
});
const executeTool = (n: number, tool: string, attrs: Record<string, AttrInput> = {}, more = {}) =>
  span(
    n,
    `execute_tool ${tool}`,
    {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': tool,
      'gen_ai.tool.call.id': `call_${n}`,
      ...attrs,
    },
    more,
  );
const j = (v: unknown): string => JSON.stringify(v);

/** The AI SDK 5/6: a model step asking for `tool`, and the next step's prompt with its answer. */
function aiSdkSteps(tool: string, output: unknown): Span[] {
  return [
    span(1, 'ai.generateText.doGenerate', {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.response.toolCalls': j([{ toolCallId: 'c1', toolName: tool, input: '{"amount":"1"}' }]),
    }),
    span(3, 'ai.generateText.doGenerate', {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.prompt.messages': j([
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: tool, input: {} }],
        },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c1', toolName: tool, output }],
        },
      ]),
    }),
  ];
}

const INVALID_INPUT = 'Invalid input for tool convert: Type validation failed: Value: {}.';

describe('one rule for refused: only a producer’s own shape for a call it did not run', () => {
  it("the AI SDK: its tool-error for a call no tool span ran; the same words from a tool that ran are the tool's error", () => {
    expect(
      outcomes(...aiSdkSteps('convert', { type: 'error-text', value: INVALID_INPUT })),
    ).toEqual([['convert', 'refused']]);
    const ran = span(
      2,
      'ai.toolCall',
      { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.name': 'convert', 'ai.toolCall.id': 'c1' },
      { status: { code: 2, message: INVALID_INPUT } },
    );
    const thrown = calls(
      ...aiSdkSteps('convert', { type: 'error-text', value: INVALID_INPUT }),
      ran,
    );
    expect(thrown.map(c => [c.source, c.outcome, c.error])).toEqual([
      ['executed', 'error', INVALID_INPUT],
    ]);
    // A tool's own error text, even one that says "Invalid input", is no refusal.
    expect(
      outcomes(...aiSdkSteps('convert', { type: 'error-text', value: 'Invalid input: amount' })),
    ).toEqual([['convert', 'error']]);
  });

  it('the AI SDK 7: the `AI_<Name>Error` text of its refusals, for a call no execute_tool span ran', () => {
    const asked = span(1, 'chat m', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.output.messages': j([
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'c9', name: 'book', arguments: {} }],
        },
      ]),
    });
    const answered = (response: string): Span =>
      span(3, 'chat m', {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': j([
          { role: 'user', parts: [{ type: 'text', content: 'go' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'c9', name: 'book' }] },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c9', response }] },
        ]),
      });
    const noSuchTool = "AI_NoSuchToolError: Model tried to call unavailable tool 'book'.";
    expect(outcomes(asked, answered(noSuchTool))).toEqual([['book', 'refused']]);
    expect(outcomes(asked, answered('AI_APICallError: 502'))).toEqual([['book', 'error']]);
  });

  it('v4 of the AI SDK: its refusal ends the run, recorded on the generateText span', () => {
    const step = span(1, 'ai.generateText.doGenerate', {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.response.toolCalls': j([
        { toolCallType: 'function', toolCallId: 'v4', toolName: 'weather', args: '{"c":' },
      ]),
    });
    const ended = span(
      2,
      'ai.generateText',
      { 'ai.operationId': 'ai.generateText' },
      {
        status: { code: 2, message: 'Invalid arguments for tool weather: JSON parse error' },
        events: [
          {
            name: 'exception',
            atMs: 25,
            attributes: {
              'exception.type': 'AI_InvalidToolArgumentsError',
              'exception.message': 'Invalid arguments for tool weather: JSON parse error',
            },
          },
        ],
      },
    );
    expect(calls(step, ended).map(c => [c.name, c.outcome, c.error])).toEqual([
      [
        'weather',
        'refused',
        'AI_InvalidToolArgumentsError: Invalid arguments for tool weather: JSON parse error',
      ],
    ]);
  });

  it("Mastra: its input validation result; a tool's own lookalike and its output validation are errors", () => {
    const mastra = (n: number, result: unknown) =>
      executeTool(n, `t${n}`, {
        'mastra.span.type': 'tool_call',
        'gen_ai.tool.call.result': j(result),
      });
    const validationErrors = { errors: [], fields: {} };
    expect(
      outcomes(
        mastra(1, {
          error: true,
          message: 'Tool input validation failed for t1.',
          validationErrors,
        }),
        mastra(2, { error: true, message: 'Tool input validation failed for t2.' }),
        mastra(3, {
          error: true,
          message: 'Tool output validation failed for t3.',
          validationErrors,
        }),
      ),
    ).toEqual([
      ['t1', 'refused'],
      ['t2', 'error'],
      ['t3', 'error'],
    ]);
  });

  it('the OpenAI Agents SDK: a function span failed over the input it rejected', () => {
    const agents = (n: number, attrs: Record<string, AttrInput>, error: string, scope?: string) =>
      span(
        n,
        'convert',
        {
          'openinference.span.kind': 'TOOL',
          'tool.name': 'convert',
          'output.value': 'An error occurred while running the tool. Please try again.',
          ...attrs,
        },
        {
          status: { code: 2, message: `Error running tool (non-fatal): ${error}` },
          scope: scope ?? '@arizeai/openinference-instrumentation-openai-agents',
        },
      );
    const redacted = j({
      tool_name: 'convert',
      error: 'Tool execution failed. Error details are redacted.',
    });
    expect(
      outcomes(
        // The JavaScript SDK's default: the rejected input blanked, the error redacted.
        agents(1, {}, redacted),
        // A thrown tool: the same error and output, its input recorded.
        agents(2, { 'input.value': '{"amount":1}' }, redacted),
        // The SDK's error for the input, when it writes it.
        agents(
          3,
          { 'input.value': '{"amount":"1"}' },
          j({
            tool_name: 'convert',
            error: "InvalidToolInputError: Invalid input for function tool 'convert'.",
          }),
        ),
        // Its output for arguments that are not JSON.
        agents(
          4,
          {
            'input.value': '{"amount":',
            'output.value':
              'An error occurred while parsing tool arguments. Please try again with valid JSON.',
          },
          redacted,
        ),
        // A tool that threw "Invalid input" itself.
        agents(
          5,
          { 'input.value': '{}' },
          j({ tool_name: 'convert', error: 'Error: Invalid input: amount' }),
        ),
        // No input on a span of another producer says nothing.
        agents(6, {}, redacted, 'some-other-bridge'),
      ),
    ).toEqual([
      ['convert', 'refused'],
      ['convert', 'error'],
      ['convert', 'refused'],
      ['convert', 'refused'],
      ['convert', 'error'],
      ['convert', 'error'],
    ]);
  });

  it("MCP: JSON-RPC -32602 (invalid params), in error.type, the span's status or the result", () => {
    const mcp = (n: number, attrs: Record<string, AttrInput>, more = {}) =>
      span(
        n,
        'tools/call convert',
        { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'convert', ...attrs },
        more,
      );
    expect(
      outcomes(
        mcp(1, { 'error.type': '-32602' }, { status: { code: 2 } }),
        mcp(
          2,
          { 'error.type': 'tool_error' },
          { status: { code: 2, message: 'Invalid input: x' } },
        ),
        mcp(3, {}, { status: { code: 2, message: 'MCP error -32602: Tool convert not found' } }),
        executeTool(4, 'convert', {
          'gen_ai.tool.call.result': j({
            content: [{ type: 'text', text: 'MCP error -32602: Input validation error: bad' }],
            isError: true,
          }),
        }),
      ),
    ).toEqual([
      ['convert', 'refused'],
      ['convert', 'error'],
      ['convert', 'refused'],
      ['convert', 'refused'],
    ]);
  });

  it('the AI SDK: a call the app denied (tool approval) is refused, never ran, never failed', () => {
    const reason = 'Cancellations need a human agent';
    const denied = calls(...aiSdkSteps('cancel', { type: 'execution-denied', reason }));
    expect(denied.map(c => [c.name, c.source, c.outcome, c.status, c.error])).toEqual([
      ['cancel', 'requested', 'refused', 'error', `execution denied: ${reason}`],
    ]);
    // The SDK's record of the denial stays the call's result: what the model was told.
    expect(denied[0]!.result).toEqual({ type: 'execution-denied', reason });
    // v7 through @ai-sdk/otel: the next chat span's tool_call_response.
    const asked = span(1, 'chat m', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.output.messages': j([
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'c9', name: 'cancel' }] },
      ]),
    });
    const answered = (response: unknown): Span =>
      span(3, 'chat m', {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': j([
          { role: 'user', parts: [{ type: 'text', content: 'go' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'c9', name: 'cancel' }] },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c9', response }] },
        ]),
      });
    expect(calls(asked, answered({ denied: true, reason })).map(c => [c.outcome, c.error])).toEqual(
      [['refused', `execution denied: ${reason}`]],
    );
    // A tool span ran the call: the same shape is the tool's own output, the call went well.
    const ran = executeTool(2, 'cancel', {
      'gen_ai.tool.call.id': 'c9',
      'gen_ai.tool.call.result': j({ denied: true, reason }),
    });
    expect(
      calls(asked, ran, answered({ denied: true, reason })).map(c => [c.source, c.outcome]),
    ).toEqual([['executed', 'ok']]);
  });

  it("an agent loop's own answer is the call's error, whatever it says", () => {
    expect(
      outcomes(
        executeTool(1, 'convert', {
          'gen_ai.tool.call.result': j({ error: 'invalid arguments for convert' }),
        }),
        executeTool(2, 'delete', {
          'gen_ai.tool.call.result': j({ error: 'unknown tool delete' }),
        }),
        executeTool(
          3,
          'x',
          {},
          { status: { code: 2, message: "Model tried to call unavailable tool 'x'" } },
        ),
      ),
    ).toEqual([
      ['convert', 'error'],
      ['delete', 'error'],
      ['x', 'error'],
    ]);
  });
});

describe('an empty error field is no failure, and an explicit OK status wins', () => {
  it.each<[string, unknown]>([
    ['{"error": ""}', { error: '' }],
    ['{"error": null}', { error: null }],
    ['isError: false', { content: [{ type: 'text', text: 'done' }], isError: false }],
    ['is_error: false', { result: 'done', is_error: false }],
  ])('%s', (_, result) => {
    expect(outcomes(executeTool(1, 'lookup', { 'gen_ai.tool.call.result': j(result) }))).toEqual([
      ['lookup', 'ok'],
    ]);
  });

  it('a span ended OK after an exception it handled (a retried attempt) is ok; one left unset is not', () => {
    const attempt = {
      events: [
        { name: 'exception', atMs: 11, attributes: { 'exception.message': 'timeout, retrying' } },
      ],
    };
    expect(
      outcomes(
        executeTool(1, 'retried', {}, { ...attempt, status: { code: 1 } }),
        executeTool(2, 'failed', {}, attempt),
      ),
    ).toEqual([
      ['retried', 'ok'],
      ['failed', 'error'],
    ]);
  });
});

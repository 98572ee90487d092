import { describe, expect, it } from 'vitest';
import {
  aiSdkRefusedTool,
  failureInResult,
  isAiSdkRefusal,
  isLangChainRefusal,
  isMcpRefusal,
  refusedToolName,
} from './tool-failure.js';

describe('failureInResult', () => {
  it.each<[string, unknown, boolean, { error: string; refused: boolean } | undefined]>([
    [
      'an MCP CallToolResult with isError',
      { content: [{ type: 'text', text: 'no weather station in Atlantis' }], isError: true },
      true,
      { error: 'no weather station in Atlantis', refused: false },
    ],
    [
      "an MCP server's invalid params (-32602): refused, even on a span that called the server",
      {
        content: [{ type: 'text', text: 'MCP error -32602: Input validation error: bad' }],
        isError: true,
      },
      true,
      { error: 'MCP error -32602: Input validation error: bad', refused: true },
    ],
    [
      'a tool that wrote "Input validation error" itself: an error',
      { content: [{ type: 'text', text: 'Input validation error: bad date' }], isError: true },
      true,
      { error: 'Input validation error: bad date', refused: false },
    ],
    [
      'an MCP result that succeeded',
      { content: [{ type: 'text', text: '{}' }], isError: false },
      true,
      undefined,
    ],
    [
      "Traceloop's MCP output",
      { result: 'MCP error -32602: Tool x not found', is_error: true },
      true,
      { error: 'MCP error -32602: Tool x not found', refused: true },
    ],
    [
      "an MCP client's error handed to the model by an agent loop",
      'MCP error -32602: Tool x not found',
      false,
      { error: 'MCP error -32602: Tool x not found', refused: true },
    ],
    [
      "an MCP server's internal error",
      'MCP error -32603: database down',
      false,
      { error: 'MCP error -32603: database down', refused: false },
    ],
    [
      'a LangChain ToolMessage with status error',
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'ToolMessage'],
        kwargs: { content: 'Error: boom', status: 'error', tool_call_id: 'c1' },
      },
      true,
      { error: 'Error: boom', refused: false },
    ],
    [
      "LangChain's ToolNode answer for an input the tool's schema rejected",
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'ToolMessage'],
        kwargs: {
          content:
            'Error: Received tool input did not match expected schema\n Please fix your mistakes.',
          status: 'error',
        },
      },
      false,
      {
        error:
          'Error: Received tool input did not match expected schema\n Please fix your mistakes.',
        refused: true,
      },
    ],
    [
      "the AI SDK's NoSuchToolError part, for a call no tool span ran",
      { type: 'error-text', value: "Model tried to call unavailable tool 'x'." },
      false,
      { error: "Model tried to call unavailable tool 'x'.", refused: true },
    ],
    [
      'the same text as the result of a tool span: the tool ran, an error',
      { type: 'error-text', value: "Model tried to call unavailable tool 'x'." },
      true,
      { error: "Model tried to call unavailable tool 'x'.", refused: false },
    ],
    [
      "Mastra's input validation result",
      {
        error: true,
        message: 'Tool input validation failed for x.',
        validationErrors: { errors: [], fields: {} },
      },
      true,
      { error: 'Tool input validation failed for x.', refused: true },
    ],
    [
      "Mastra's output validation result: the tool ran",
      {
        error: true,
        message: 'Tool output validation failed for x.',
        validationErrors: { errors: [], fields: {} },
      },
      true,
      { error: 'Tool output validation failed for x.', refused: false },
    ],
    [
      "a tool's own `{error: true, message}`, the same words without Mastra's validationErrors",
      { error: true, message: 'Tool input validation failed for x.' },
      true,
      { error: 'Tool input validation failed for x.', refused: false },
    ],
    [
      "the AI SDK 6's answer for a call the app denied (tool approval), no tool span",
      { type: 'execution-denied', reason: 'Cancellations need a human agent' },
      false,
      { error: 'execution denied: Cancellations need a human agent', refused: true },
    ],
    [
      "the AI SDK 7's denial as @ai-sdk/otel writes it",
      { denied: true, reason: 'Cancellations need a human agent' },
      false,
      { error: 'execution denied: Cancellations need a human agent', refused: true },
    ],
    [
      'a denial without a reason',
      { denied: true },
      false,
      { error: 'execution denied', refused: true },
    ],
    [
      "a provider-executed tool's denial, with the SDK's providerOptions",
      { type: 'execution-denied', providerOptions: { openai: { approvalId: 'a1' } } },
      false,
      { error: 'execution denied', refused: true },
    ],
    [
      "a tool that ran and returned the denial's shape: its own output",
      { denied: true, reason: 'not on the guest list' },
      true,
      undefined,
    ],
    [
      "the denial's words with a key of a tool's own: an output, not the SDK's denial",
      { denied: true, reason: 'policy', booking: 'B-42' },
      false,
      undefined,
    ],
    [
      'a denial whose reason is no text: not the SDK’s shape',
      { type: 'execution-denied', reason: 42 },
      false,
      undefined,
    ],
    ['a lone error', { error: 'rate limited' }, false, { error: 'rate limited', refused: false }],
    [
      'an agent loop answering "invalid arguments": an error, not a refusal',
      { error: 'invalid arguments for convert_currency: amount must be a number' },
      false,
      { error: 'invalid arguments for convert_currency: amount must be a number', refused: false },
    ],
    ['an empty error field', { error: '' }, false, undefined],
    ['a blank error field', { error: '  ' }, false, undefined],
    ['a null error field', { error: null }, false, undefined],
    [
      'a result that has an error field among others',
      { error: 'none', value: 3 },
      false,
      undefined,
    ],
    [
      "an AI SDK 7 tool-error part's text, no tool span",
      'AI_NoSuchToolError: Model tried to call unavailable tool',
      false,
      { error: 'AI_NoSuchToolError: Model tried to call unavailable tool', refused: true },
    ],
    [
      "an AI SDK 7 tool-error's text of another error",
      'AI_APICallError: upstream 500',
      false,
      { error: 'AI_APICallError: upstream 500', refused: false },
    ],
    ['plain text', 'Error: this is what the tool returned', false, undefined],
    ['a JSON result', { city: 'Paris' }, true, undefined],
  ])('%s', (_, result, ran, expected) => {
    expect(failureInResult(result, ran)).toEqual(expected);
  });
});

describe("each producer's refusal texts", () => {
  it("reads the AI SDK's, anchored at the start (a tool quoting them is no refusal)", () => {
    expect(isAiSdkRefusal('Invalid input for tool convert_currency: Type validation failed')).toBe(
      true,
    );
    expect(isAiSdkRefusal('AI_InvalidToolInputError: Invalid input for tool x: y')).toBe(true);
    expect(isAiSdkRefusal("Model tried to call unavailable tool 'x'. Available tools: y.")).toBe(
      true,
    );
    expect(isAiSdkRefusal('Invalid input')).toBe(false);
    expect(isAiSdkRefusal('upstream: Invalid input for tool x: y')).toBe(false);
    expect(aiSdkRefusedTool('Invalid arguments for tool weather: JSON parse error')).toBe(
      'weather',
    );
    expect(
      aiSdkRefusedTool("Model tried to call unavailable tool 'book'. Available tools: a."),
    ).toBe('book');
    expect(aiSdkRefusedTool('no weather station in Atlantis')).toBeUndefined();
  });
  it("reads LangChain's ToolNode words for a call it did not run, at the start", () => {
    for (const text of [
      'Error: Received tool input did not match expected schema\n\n✖ Invalid input',
      'Error: Tool "delete_booking" not found.\n Please fix your mistakes.',
      "Error: Error invoking tool 'convert' with kwargs {} with error: …",
      'Error: delete_booking is not a valid tool, try one of [get_weather].',
    ])
      expect(isLangChainRefusal(text), text).toBe(true);
    expect(isLangChainRefusal('Error: Invalid input: amount must be positive')).toBe(false);
    expect(isLangChainRefusal('upstream: Received tool input did not match expected schema')).toBe(
      false,
    );
  });
  it("reads MCP's invalid params only", () => {
    expect(isMcpRefusal('MCP error -32602: Tool x not found')).toBe(true);
    expect(isMcpRefusal('MCP error -32603: internal')).toBe(false);
    expect(isMcpRefusal('Tool x not found')).toBe(false);
  });
  it('reads the tool an OpenAI Agents run refused from its ModelBehaviorError', () => {
    expect(
      refusedToolName(
        'Error in agent run: {"error":"ModelBehaviorError: Tool delete_booking not found in agent a."}',
      ),
    ).toBe('delete_booking');
    expect(refusedToolName('Tool x not found in agent y')).toBeUndefined();
    expect(refusedToolName('Tool x not found')).toBeUndefined();
  });
});

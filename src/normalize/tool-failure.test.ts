import { describe, expect, it } from 'vitest';
import { failureInResult, isRefusal, refusedToolName } from './tool-failure.js';

describe('failureInResult', () => {
  it.each<[string, unknown, { error: string; refused: boolean } | undefined]>([
    [
      'an MCP CallToolResult with isError',
      { content: [{ type: 'text', text: 'no weather station in Atlantis' }], isError: true },
      { error: 'no weather station in Atlantis', refused: false },
    ],
    [
      'an MCP validation error',
      {
        content: [{ type: 'text', text: 'MCP error -32602: Input validation error: bad' }],
        isError: true,
      },
      { error: 'MCP error -32602: Input validation error: bad', refused: true },
    ],
    [
      'an MCP result that succeeded',
      { content: [{ type: 'text', text: '{}' }], isError: false },
      undefined,
    ],
    [
      "Traceloop's MCP output",
      { result: 'MCP error -32602: Tool x not found', is_error: true },
      { error: 'MCP error -32602: Tool x not found', refused: true },
    ],
    [
      'a LangChain ToolMessage with status error',
      {
        lc: 1,
        type: 'constructor',
        id: ['langchain_core', 'messages', 'ToolMessage'],
        kwargs: { content: 'Error: boom', status: 'error', tool_call_id: 'c1' },
      },
      { error: 'Error: boom', refused: false },
    ],
    [
      'an AI SDK error output',
      { type: 'error-text', value: "Model tried to call unavailable tool 'x'." },
      { error: "Model tried to call unavailable tool 'x'.", refused: true },
    ],
    [
      "Mastra's validation result",
      { error: true, message: 'Tool input validation failed for x.', validationErrors: {} },
      { error: 'Tool input validation failed for x.', refused: true },
    ],
    ['a lone error', { error: 'rate limited' }, { error: 'rate limited', refused: false }],
    ['a result that has an error field among others', { error: 'none', value: 3 }, undefined],
    [
      "an AI SDK 7 tool-error part's text",
      'AI_NoSuchToolError: Model tried to call unavailable tool',
      { error: 'AI_NoSuchToolError: Model tried to call unavailable tool', refused: true },
    ],
    ['plain text', 'Error: this is what the tool returned', undefined],
    ['a JSON result', { city: 'Paris' }, undefined],
  ])('%s', (_, result, expected) => {
    expect(failureInResult(result)).toEqual(expected);
  });
});

describe('isRefusal and refusedToolName', () => {
  it('tells a refusal from a failure of the tool', () => {
    expect(isRefusal('Invalid input for tool convert_currency: Type validation failed')).toBe(true);
    expect(isRefusal('Received tool input did not match expected schema')).toBe(true);
    expect(isRefusal('no weather station in Atlantis')).toBe(false);
    expect(isRefusal('the tool found no invalid arguments')).toBe(false);
  });
  it('reads the tool an OpenAI Agents run refused', () => {
    expect(
      refusedToolName(
        'Error in agent run: {"error":"ModelBehaviorError: Tool delete_booking not found in agent a."}',
      ),
    ).toBe('delete_booking');
    expect(refusedToolName('Tool x not found')).toBeUndefined();
  });
});

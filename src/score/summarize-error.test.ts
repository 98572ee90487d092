import { describe, expect, it } from 'vitest';
import { summarizeError } from './summarize-error.js';

// Zod 4's issues as `ZodError.message` prints them (JSON, two-space indent).
const zodIssues = JSON.stringify(
  [
    {
      expected: 'number',
      code: 'invalid_type',
      path: ['amount'],
      message: 'Invalid input: expected number, received string',
    },
    {
      expected: 'string',
      code: 'invalid_type',
      path: ['to'],
      message: 'Invalid input: expected string, received undefined',
    },
  ],
  null,
  2,
);

describe('summarizeError', () => {
  it.each([
    [
      'the AI SDK 5/6 InvalidToolInputError',
      `Invalid input for tool convert_currency: Type validation failed: Value: {"amount":"100","from":"EUR"}.\nError message: ${zodIssues}`,
    ],
    [
      'the AI SDK 7 text, class names and all',
      `AI_InvalidToolInputError: Invalid input for tool convert_currency: AI_TypeValidationError: Type validation failed: Value: {"amount":"100","from":"EUR"}.\nError message: ${zodIssues}`,
    ],
    [
      "Mastra's validation message",
      'Tool input validation failed for convert_currency. Please fix the following errors and try again:\n- amount: Invalid input: expected number, received string\n- to: Invalid input: expected string, received undefined\n\nProvided arguments: {\n  "amount": "100",\n  "from": "EUR"\n}',
    ],
    [
      "the MCP SDK's validation error",
      'MCP error -32602: Input validation error: Invalid arguments for tool convert_currency: Invalid input: expected number, received string at amount\nInvalid input: expected string, received undefined at to',
    ],
    [
      "zod's pretty form (LangChain's ToolInputParsingException)",
      'Received tool input did not match expected schema\n\n✖ Invalid input: expected number, received string\n  → at amount\n✖ Invalid input: expected string, received undefined\n  → at to',
    ],
    ["an agent loop's zod error", `invalid arguments for convert_currency: ${zodIssues}`],
  ])('names the issues of %s', (_, text) => {
    expect(summarizeError(text)).toBe('invalid input: /amount expected number, /to is required');
  });

  it('reads zod 3 issues, skips a list that holds no issues, and counts what it does not name', () => {
    const zod3 = JSON.stringify(
      ['a', 'b', 'c', 'd'].map(k => ({
        code: 'invalid_type',
        expected: 'string',
        received: k === 'a' ? 'undefined' : 'number',
        path: ['items', 0, k],
        message: k === 'a' ? 'Required' : 'Expected string, received number',
      })),
    );
    expect(summarizeError(`Value: {"items":[{"x":1}]} failed: ${zod3}`)).toBe(
      'invalid input: /items/0/a is required, /items/0/b expected string, /items/0/c expected string, +1 more',
    );
  });

  it("says output for a check of what the tool returned (Mastra's output validation)", () => {
    expect(
      summarizeError(
        'Tool output validation failed for lookup_booking. The tool returned invalid output:\n- status: Invalid input: expected string, received undefined\n\nReturned output: {\n  "bookingId": "B-7"\n}',
      ),
    ).toBe('invalid output: /status is required');
  });

  it('keeps a short text whole, on one line', () => {
    expect(summarizeError('no weather\n  station in   Atlantis')).toBe(
      'no weather station in Atlantis',
    );
  });

  it('cuts a long text at a word boundary outside quotes, never inside a JSON string', () => {
    const text = `upstream answered ${JSON.stringify({ detail: 'a b c '.repeat(60), code: 7 })} after retries`;
    const summary = summarizeError(text, 80);
    expect(summary).toBe('upstream answered…');
    expect(summary.length).toBeLessThanOrEqual(81);
    const words = summarizeError('word '.repeat(100), 30);
    expect(words).toBe('word word word word word word…');
  });

  it('is bounded on hostile text: what it reads is the first 16 KiB, whatever follows', () => {
    const hostile = [
      '[{'.repeat(500_000),
      `${'- a: b\n'.repeat(200_000)}validation failed`,
      `validation failed\n${'x: Invalid input at a.b\n'.repeat(200_000)}`,
      '"'.repeat(1_000_000),
      `[${' '.repeat(1_000_000)}`,
    ];
    for (const text of hostile) {
      const summary = summarizeError(text);
      expect(summary.length).toBeLessThanOrEqual(201);
      // The same summary from the first 16 KiB and from that followed by anything else: nothing
      // past the bound is read, so the work is bounded by the bound, not by the text's length.
      const head = text.slice(0, 16_384);
      expect(summarizeError(`${head}${'[{"path":["x"],"message":"late"}]'.repeat(1_000)}`)).toBe(
        summary,
      );
    }
  });
});

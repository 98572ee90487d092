import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  failureSignature,
  MAX_ERROR_CHARS,
  MAX_SIGNATURE_CHARS,
  NO_ERROR_TEXT,
  type NormalizeWork,
} from './failure-signature.js';

/**
 * The error texts of the failed and refused calls in test/fixtures/otlp (read through the real
 * normalizer, `normalizeTrace`), each with the capture it came from and its signature.
 */
const CAPTURED: Array<[capture: string, error: string, signature: string]> = [
  [
    'captured-ai-sdk-6.0.325-health',
    "Model tried to call unavailable tool 'delete_booking'. Available tools: get_weather, convert_currency.",
    'Model tried to call unavailable tool <str>. Available tools: get_weather, convert_currency.',
  ],
  [
    'captured-ai-sdk-7.0.173-health',
    'AI_InvalidToolInputError: Invalid input for tool convert_currency: AI_TypeValidationError: Type validation failed: Value: {"amount":"100","from":"EUR"}.\nError message: [\n  {\n    "expected": "number",\n    "code": "invalid_type",\n    "path": [\n      "amount"\n    ],\n    "message": "Invalid input: expected number, received string"\n  }\n]',
    'AI_InvalidToolInputError: Invalid input for tool convert_currency: AI_TypeValidationError: Type validation failed: Value: {"amount":<str>,"from":<str>}. Error message: [ { "expected": <str>, "code": …',
  ],
  [
    'captured-mcp-1.32.2-ai-sdk-7.0.173-health',
    "AI_NoSuchToolError: Model tried to call unavailable tool 'delete_booking'. Available tools: get_weather, convert_currency.",
    'AI_NoSuchToolError: Model tried to call unavailable tool <str>. Available tools: get_weather, convert_currency.',
  ],
  [
    'captured-mastra-1.71.0-health',
    'Tool input validation failed for convert_currency. Please fix the following errors and try again:\n- amount: Invalid input: expected number, received string\n- to: Invalid input: expected string, received undefined\n\nProvided arguments: {\n  "amount": "100",\n  "from": "EUR"\n}',
    'Tool input validation failed for convert_currency. Please fix the following errors and try again: - amount: Invalid input: expected number, received string - to: Invalid input: expected string, recei…',
  ],
  [
    'captured-mastra-1.71.0-health',
    'Mastra handed the call to the client: the agent has no tool delete_booking',
    'Mastra handed the call to the client: the agent has no tool delete_booking',
  ],
  [
    'captured-mcp-1.32.2-traceloop-0.27.0-health',
    'MCP error -32602: Input validation error: Invalid arguments for tool convert_currency: Invalid input: expected number, received string at amount\nInvalid input: expected string, received undefined at to',
    'MCP error -<n>: Input validation error: Invalid arguments for tool convert_currency: Invalid input: expected number, received string at amount Invalid input: expected string, received undefined at to',
  ],
  [
    'captured-mcp-1.32.2-traceloop-0.27.0-health',
    'MCP error -32602: Tool delete_booking not found',
    'MCP error -<n>: Tool delete_booking not found',
  ],
  [
    'captured-openai-agents-0.20.0-health',
    'Error running tool (non-fatal): {"tool_name":"get_weather","error":"Tool execution failed. Error details are redacted."}',
    'Error running tool (non-fatal): {"tool_name":<str>,"error":"Tool execution failed. Error details are redacted."}',
  ],
  [
    'captured-openai-agents-0.20.0-health',
    'Error in agent run: {"error":"ModelBehaviorError: Tool delete_booking not found in agent health-agent."}',
    'Error in agent run: {"error":"ModelBehaviorError: Tool delete_booking not found in agent health-agent."}',
  ],
  [
    'captured-opentelemetry-openai-0.21.0-health',
    'no weather station in Atlantis',
    'no weather station in Atlantis',
  ],
  ['captured-vercel-ai-sdk-v5', 'search backend unavailable', 'search backend unavailable'],
];

describe('failureSignature', () => {
  it.each(CAPTURED)('%s: %j', (_capture, error, signature) => {
    expect(failureSignature(error)).toBe(signature);
  });

  it('groups the failures of one cause: the same tool failing for two calls is one signature', () => {
    const agents = (tool: string) =>
      `Error running tool (non-fatal): {"tool_name":"${tool}","error":"Tool execution failed. Error details are redacted."}`;
    expect(failureSignature(agents('get_weather'))).toBe(
      failureSignature(agents('convert_currency')),
    );
  });

  it.each([
    [
      'numbers, decimals, addresses',
      'retry 3 of 5 after 1.5 s at 10.0.0.12:6379',
      'retry <n> of <n> after <n> s at <n>:<n>',
    ],
    [
      'units and digits in words',
      'timed out after 30000ms (E11000, user12345, utf8, v2, 0x1F)',
      'timed out after <n>ms (E<n>, user<n>, utf8, v2, <n>)',
    ],
    ['UUIDs', 'order 550E8400-e29b-41d4-a716-446655440000 not found', 'order <id> not found'],
    [
      'hex ids',
      'span 00f067aa0ba902b7 of trace 4bf92f3577b34da6a3ce929d0e0e4736',
      'span <id> of trace <id>',
    ],
    [
      'prefixed ids',
      'no such call call_ZgUfPzkx9r1yH3YQPgdPLx8m (req-8f3a2b9c1d)',
      'no such call call_<id> (req-<id>)',
    ],
    [
      'words that are not ids',
      'getWeatherForecast2 and deadbeef and AI_InvalidToolInputError',
      'getWeatherForecast2 and deadbeef and AI_InvalidToolInputError',
    ],
    [
      'quoted values',
      `city "Paris" unknown; 'Lyon' too; \`Oslo\` and “Rome” and ‘Bern’`,
      'city <str> unknown; <str> too; <str> and <str> and <str>',
    ],
    [
      'apostrophes',
      "can't find it: it doesn't exist, l'index n'est pas là",
      "can't find it: it doesn't exist, l'index n'est pas là",
    ],
    ['an escaped quote inside quotes', 'bad value "say \\"hi\\"" here', 'bad value <str> here'],
    ['an unclosed quote', 'bad value "Paris', 'bad value "Paris'],
    [
      'JSON keys kept, values out',
      '{"code": 429, "type": "rate_limit", "path": ["a", "b"]}',
      '{"code": <n>, "type": <str>, "path": [<str>, <str>]}',
    ],
    [
      'file paths',
      'ENOENT: open /var/data/cities.json; see ./a/b, ../c/d, ~/e/f, C:\\Users\\x, \\\\srv\\share',
      'ENOENT: open <path>; see <path>, <path>, <path>, <path>, <path>',
    ],
    [
      'nothing from markup',
      '<html><body><h1>502 Bad Gateway</h1></body></html>',
      '<html><body><h1><n> Bad Gateway</h1></body></html>',
    ],
    ['one-slash paths with a file extension', 'open /data.json or /tmp', 'open <path> or /tmp'],
    [
      'relative paths',
      'in src/data/cities.ts:12:5 and node_modules/x/index.js',
      'in <path> and <path>',
    ],
    [
      'slashes that are no path',
      'and/or application/json n/a TCP/IP HTTP/1.1',
      'and/or application/json n/a TCP/IP HTTP/<n>',
    ],
    [
      'URLs: host kept, user, path and query out',
      'GET https://bob:secret@api.example.com:8443/v1/users/42?key=abc=1,2;x|y failed.',
      'GET https://api.example.com:<n>/<path> failed.',
    ],
    [
      'a URL with no path',
      'cannot reach http://localhost:3000/ or http://db.internal',
      'cannot reach http://localhost:<n>/ or http://db.internal',
    ],
    [
      'e-mail addresses',
      'user bob.smith@example.com is not allowed',
      'user <email> is not allowed',
    ],
    ['whitespace and control characters', 'a\t\tb\r\n\n c\u0000d\u0007e', 'a b c d e'],
    [
      'bidirectional and zero-width characters',
      'tool \u202efdp.exe\u202c fa\u200biled\ufeff',
      'tool fdp.exe failed',
    ],
    ['unpaired surrogates', 'bad \ud800 text \udc00 😀', 'bad text 😀'],
  ])('takes out %s', (_what, text, signature) => {
    expect(failureSignature(text)).toBe(signature);
  });

  it.each([
    [
      'JavaScript',
      "TypeError: Cannot read properties of undefined (reading 'id')\n    at getUser (/app/src/users.js:10:15)\n    at async Promise.all (index 0)",
      'TypeError: Cannot read properties of undefined (reading <str>)',
    ],
    [
      'Java',
      'java.lang.IllegalStateException: closed\n\tat com.acme.Pool.get(Pool.java:42)\n\t... 12 more\nCaused by: java.io.IOException: reset\n\tat x.Y.z(Y.java:3)',
      'java.lang.IllegalStateException: closed Caused by: java.io.IOException: reset',
    ],
    [
      'Python',
      'Traceback (most recent call last):\n  File "/app/tools.py", line 12, in get_weather\n    raise ValueError(f"no station {city}")\nValueError: no station Atlantis',
      'ValueError: no station Atlantis',
    ],
    [
      '.NET',
      'System.InvalidOperationException: Sequence contains no elements\n   at System.Linq.Enumerable.First(IEnumerable`1 source)\n--- End of stack trace from previous location ---\n   at Acme.Tools.Run() in C:\\src\\Tools.cs:line 42',
      'System.InvalidOperationException: Sequence contains no elements',
    ],
    [
      'Go',
      'panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/x.go:8 +0x1d\nexit status 2',
      'panic: runtime error: index out of range [<n>] with length <n>',
    ],
  ])('leaves out %s stack frames', (_language, text, signature) => {
    expect(failureSignature(text)).toBe(signature);
  });

  it('says so when there is no error text, or only stack frames', () => {
    expect(failureSignature(undefined)).toBe(NO_ERROR_TEXT);
    expect(failureSignature(null)).toBe(NO_ERROR_TEXT);
    expect(failureSignature('')).toBe(NO_ERROR_TEXT);
    expect(failureSignature(' \n\t ')).toBe(NO_ERROR_TEXT);
    expect(failureSignature('\n    at f (x.js:1:1)\n    at g (y.js:2:2)')).toBe(NO_ERROR_TEXT);
  });

  it(`is at most ${MAX_SIGNATURE_CHARS} characters, cut with …, never in a surrogate pair`, () => {
    const long = failureSignature('word '.repeat(100));
    expect(long).toHaveLength(MAX_SIGNATURE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    for (let pad = 0; pad < 4; pad++) {
      const emoji = failureSignature(`${'a'.repeat(pad)}${'😀'.repeat(150)}`);
      expect(emoji.length).toBeLessThanOrEqual(MAX_SIGNATURE_CHARS);
      expect(emoji).not.toMatch(
        /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
      );
    }
  });

  it(`reads no more than the first ${MAX_ERROR_CHARS} characters`, () => {
    const head = 'tool failed: '.padEnd(MAX_ERROR_CHARS, ' ');
    expect(failureSignature(`${head}secret 123`)).toBe('tool failed:');
    expect(failureSignature(`${head.slice(0, -1)}\ud83d\ude00`)).toBe('tool failed:');
  });

  it('is the same for failures that differ only in their values', () => {
    const template = (n: number, id: string, city: string, file: string) =>
      `lookup ${n} failed for order ${id}: city '${city}' not in /data/${file}.json after ${n * 10}ms`;
    fc.assert(
      fc.property(
        fc.nat(),
        fc.uuid(),
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter(s => !/['\n]/.test(s)),
        fc.stringMatching(/^[a-z0-9_]{1,12}$/),
        (n, id, city, file) => {
          expect(failureSignature(template(n, id, city, file))).toBe(
            'lookup <n> failed for order <id>: city <str> not in <path> after <n>ms',
          );
        },
      ),
    );
  });
});

/**
 * Error texts come from traces: hostile ones must cost no more than ordinary ones. The work is
 * counted (characters examined), not timed: at most {@link STEPS_PER_CHAR} per character read,
 * however long the text, so a megabyte costs what its first 2,000 characters cost.
 */
const STEPS_PER_CHAR = 12;

describe('failureSignature on hostile input', () => {
  const n = MAX_ERROR_CHARS;
  const hostile: Array<[string, string]> = [
    ['quotes', '"'.repeat(n)],
    ['escaped quotes, never closed', `"${'\\"'.repeat(n)}`],
    ['openers of every kind, never closed', ` "a 'b \`c “d ‘e`.repeat(n / 10)],
    ['apostrophes', "a'b ".repeat(n / 4)],
    ['quote after quote, each closed at the end of the line', `${' "'.repeat(n / 2)}\n`],
    ['JSON keys and messages', '{"k":"a b","l":"c d",'.repeat(n / 20)],
    ['slashes', '/'.repeat(n)],
    ['one long path', `/${'a/'.repeat(n / 2)}`],
    ['tokens that are almost paths', 'a/b '.repeat(n / 4)],
    ['a URL with a long query', `http://h/${'=a,'.repeat(n / 3)}`],
    ['URL schemes everywhere', 'http:// '.repeat(n / 8)],
    ['almost UUIDs', '00000000-0000-0000-0000-00000000000 '.repeat(n / 36)],
    ['hex', 'f'.repeat(n)],
    ['digits and dots', '1.'.repeat(n / 2)],
    ['underscores', 'a_1'.repeat(n / 3)],
    ['e-mail-like', 'a@b.c@d.e '.repeat(n / 10)],
    ['stack frames', '\n    at f (x.js:1:1)'.repeat(n / 20)],
    ['Python frames', '\n  File "x.py", line 1, in f\n    g()'.repeat(n / 36)],
    ['newlines', '\n'.repeat(n)],
    ['invisible characters', '\u202e\u200b'.repeat(n / 2)],
    ['lone surrogates', '\ud800'.repeat(n)],
    ['spaces', ' '.repeat(n)],
  ];

  it.each(hostile)(
    '%s: bounded work per character read, and a bounded signature',
    (_what, text) => {
      for (const size of [1, 100]) {
        const input = text.repeat(size);
        const work: NormalizeWork = { steps: 0 };
        const signature = failureSignature(input, work);
        expect(signature.length).toBeLessThanOrEqual(MAX_SIGNATURE_CHARS);
        expect(work.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * Math.min(input.length, n) + 64);
      }
    },
  );

  it('random text: bounded work and length, never a throw', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            ...'"\'`“”‘’ \n\t/\\:.,;=@-_0123456789abcfxyzAZ{}[]()<>\u202e\ud800',
          ),
          maxLength: 3 * n,
        }),
        text => {
          const work: NormalizeWork = { steps: 0 };
          expect(failureSignature(text, work).length).toBeLessThanOrEqual(MAX_SIGNATURE_CHARS);
          expect(work.steps).toBeLessThanOrEqual(STEPS_PER_CHAR * Math.min(text.length, n) + 64);
        },
      ),
      { numRuns: 300 },
    );
  });
});

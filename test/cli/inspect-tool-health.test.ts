import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const CAPTURE = join(
  new URL('../fixtures/otlp/', import.meta.url).pathname,
  'captured-ai-sdk-7.0.173-health.otlp.json',
);

interface InspectedJson {
  testCaseId: string;
  toolCalls: Array<{
    name: string;
    outcome: string;
    error: string | null;
    argumentProblems: string[] | null;
    offered: boolean | null;
  }>;
}

/** `spanscore inspect` on the AI SDK 7's tool-health capture: each call's outcome and checks. */
describe('spanscore inspect: tool health', () => {
  it('--format json: each call has outcome, error, argumentProblems and offered', async () => {
    const { code, stdout } = await runCli(['inspect', CAPTURE, '--format', 'json']);
    expect(code).toBe(0);
    const byCase = new Map(
      stdout
        .trim()
        .split('\n')
        .map(line => JSON.parse(line) as InspectedJson)
        .map(i => [
          i.testCaseId,
          i.toolCalls.map(({ name, outcome, error, argumentProblems, offered }) => ({
            name,
            outcome,
            error,
            argumentProblems,
            offered,
          })),
        ]),
    );
    expect(byCase.get('healthy')).toEqual([
      { name: 'get_weather', outcome: 'ok', error: null, argumentProblems: [], offered: true },
    ]);
    expect(byCase.get('invalid-arguments')).toEqual([
      {
        name: 'convert_currency',
        outcome: 'refused',
        error: expect.stringContaining('AI_InvalidToolInputError'),
        argumentProblems: ['/amount: must be number', "/: must have required property 'to'"],
        offered: true,
      },
      { name: 'convert_currency', outcome: 'ok', error: null, argumentProblems: [], offered: true },
    ]);
    expect(byCase.get('tool-not-offered')).toEqual([
      {
        name: 'delete_booking',
        outcome: 'refused',
        error: expect.stringContaining('AI_NoSuchToolError'),
        argumentProblems: null,
        offered: false,
      },
    ]);
    expect(byCase.get('tool-throws')![0]).toMatchObject({
      outcome: 'error',
      error: 'no weather station in Atlantis',
    });
  });

  it("the table shows each call's outcome and its arguments check", async () => {
    const { stdout } = await runCli(['inspect', CAPTURE, '--format', 'table']);
    expect(stdout).toContain('outcome');
    expect(stdout).toContain('arguments check');
    expect(stdout).toContain('not offered to the model');
    expect(stdout).toContain("/amount: must be number; /: must have required property 'to'");
    expect(stdout).toContain('error: no weather station in Atlantis');
  });
});

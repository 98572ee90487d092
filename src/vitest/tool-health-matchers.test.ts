import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { traced } from '../capture/traced.js';
import { captureTrace } from './index.js';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** The AI SDK's mock model asking, step by step, for these calls, then answering. */
function scripted(steps: Array<Array<{ id: string; name: string; input: unknown }>>) {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: () => {
      const calls = steps[step++];
      return Promise.resolve(
        calls
          ? {
              content: calls.map(c => ({
                type: 'tool-call' as const,
                toolCallId: c.id,
                toolName: c.name,
                input: JSON.stringify(c.input),
              })),
              finishReason: 'tool-calls' as const,
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text' as const, text: 'Done.' }],
              finishReason: 'stop' as const,
              usage,
              warnings: [],
            },
      );
    },
  });
}

const tools = {
  get_weather: tool({
    description: 'Current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: ({ city }) => {
      if (city === 'Atlantis') throw new Error('no weather station in Atlantis');
      return Promise.resolve({ city, sky: 'sunny' });
    },
  }),
};

/** An AI SDK 5 agent (`experimental_telemetry`) making `steps`' calls, captured. */
function agent(steps: Array<Array<{ id: string; name: string; input: unknown }>>) {
  return captureTrace(() =>
    generateText({
      model: scripted(steps),
      prompt: 'Weather?',
      tools,
      stopWhen: stepCountIs(6),
      experimental_telemetry: { isEnabled: true },
    }),
  );
}

const paris = (id: string) => ({ id, name: 'get_weather', input: { city: 'Paris' } });

function failure(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
  }
  throw new Error('expected the assertion to fail');
}

describe('tool-health matchers on a real AI SDK agent', () => {
  it('a healthy run: no errors, valid arguments, no loop', async () => {
    const run = await agent([[paris('c1')]]);
    expect(run).toHaveNoToolErrors();
    expect(run).toHaveValidToolArguments();
    expect(run).not.toHaveRepeatedToolCalls();
    expect(failure(() => expect(run).not.toHaveNoToolErrors())).toContain(
      'Expected a tool call to fail or be refused',
    );
  });

  it('a tool that throws, and a call the SDK refused for its arguments', async () => {
    const throws = await agent([[{ id: 'c1', name: 'get_weather', input: { city: 'Atlantis' } }]]);
    expect(failure(() => expect(throws).toHaveNoToolErrors())).toContain(
      'get_weather failed: no weather station in Atlantis',
    );
    const invalid = await agent([[{ id: 'c1', name: 'get_weather', input: { town: 'Paris' } }]]);
    const message = failure(() => expect(invalid).toHaveNoToolErrors());
    expect(message).toContain('get_weather was refused: Invalid input for tool get_weather');
    expect(invalid).toHaveNoToolErrors({ refused: false });
    expect(failure(() => expect(invalid).toHaveValidToolArguments())).toContain(
      "get_weather: /: must have required property 'city'",
    );
    expect(invalid).not.toHaveValidToolArguments();
  });

  it('a tool the model was never offered', async () => {
    const run = await agent([[{ id: 'c1', name: 'delete_booking', input: { id: 'B1' } }]]);
    expect(failure(() => expect(run).toHaveValidToolArguments())).toContain(
      'delete_booking: not offered',
    );
  });

  it('the same call three times is a loop; two are not', async () => {
    const loop = await agent([[paris('c1')], [paris('c2')], [paris('c3')]]);
    expect(loop).toHaveRepeatedToolCalls();
    expect(failure(() => expect(loop).not.toHaveRepeatedToolCalls())).toContain('get_weather ×3');
    const twice = await agent([[paris('c1')], [paris('c2')]]);
    expect(twice).not.toHaveRepeatedToolCalls();
    expect(twice).toHaveRepeatedToolCalls({ minRepeats: 2 });
  });

  it('cannot check arguments where the trace records no schema', async () => {
    const lookup = traced('lookup', (q: string) => q.length);
    const run = await captureTrace(() => lookup('x'));
    expect(() => expect(run).toHaveValidToolArguments()).toThrow(
      'toHaveValidToolArguments: nothing to check: the trace records no tools offered to the model',
    );
  });

  it('judges several runs by their pass rate', async () => {
    const runs = [
      await agent([[paris('c1')]]),
      await agent([[paris('c1')], [paris('c2')], [paris('c3')]]),
    ];
    expect(runs).toHaveRepeatedToolCalls({ minPassRate: 0.5 });
    expect(runs).toHaveNoToolErrors();
    expect(failure(() => expect(runs).toHaveRepeatedToolCalls())).toContain('1 passed (50%');
  });
});

/**
 * The tool-health scenarios (`spanscore`'s reference-free scorers `tool_errors`, `tool_arguments`
 * and `tool_loops`): what goes wrong with tools in production, each against its own scripted
 * OpenAI-compatible server whose replies are fixed here, so each capture's golden expectations
 * (`test/fixtures/expected/captured-<framework>-<version>-health.tool-health.json`) are written
 * from this file alone:
 * - `healthy`: one call that works;
 * - `invalid-arguments`: `convert_currency` with `amount` as a string and `to` missing, which the
 *   framework refuses, then the corrected call;
 * - `tool-not-offered`: `delete_booking`, which the agent was never given;
 * - `tool-throws`: `get_weather` for Atlantis, which throws "no weather station in Atlantis";
 * - `repeated-call`: the same `get_weather` call for Paris in three model turns.
 */
import { z } from 'zod';
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
  type OpenAiCompatibleServer,
} from '../test/helpers/openai-compatible-server.js';
import { MODEL } from './scenarios.js';

/** The tools the health agents are given: two. `delete_booking` is asked for, never offered. */
export const HEALTH_TOOLS = {
  get_weather: {
    description: 'Current weather for a city',
    schema: z.object({ city: z.string() }),
    run: (args: { city: string }) => {
      if (args.city === 'Atlantis') throw new Error('no weather station in Atlantis');
      return { city: args.city, temperatureC: 18, condition: 'sunny' };
    },
  },
  convert_currency: {
    description: 'Convert an amount between two currencies',
    schema: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
    run: (args: { amount: number; from: string; to: string }) => ({
      amount: Math.round(args.amount * 1.08 * 100) / 100,
      currency: args.to,
    }),
  },
} as const;

export type HealthToolName = keyof typeof HEALTH_TOOLS;

/** Runs a health tool on arguments its schema accepted; throws as the tool does. */
export function runHealthTool(name: string, args: unknown): unknown {
  const tool = HEALTH_TOOLS[name as HealthToolName];
  if (!tool) throw new Error(`unknown tool ${name}`);
  return (tool.run as (a: unknown) => unknown)(args);
}

/** {@link HEALTH_TOOLS} as the `tools` of an OpenAI chat completion request. */
export const OPENAI_HEALTH_TOOLS = Object.entries(HEALTH_TOOLS).map(([name, t]) => ({
  type: 'function' as const,
  function: { name, description: t.description, parameters: z.toJSONSchema(t.schema) },
}));

export interface HealthScenario {
  testCaseId: string;
  prompt: string;
  /** The model's turns: each asks for these calls; then the final answer. */
  turns: Array<Array<{ id: string; name: string; arguments: Record<string, unknown> }>>;
  answer: string;
}

export const HEALTH_SCENARIOS: HealthScenario[] = [
  {
    testCaseId: 'healthy',
    prompt: 'What is the weather in Paris?',
    turns: [[{ id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris' } }]],
    answer: 'It is sunny and 18 °C in Paris.',
  },
  {
    testCaseId: 'invalid-arguments',
    prompt: 'Convert 100 EUR to USD.',
    turns: [
      [
        {
          id: 'call_convert_bad',
          name: 'convert_currency',
          arguments: { amount: '100', from: 'EUR' },
        },
      ],
      [
        {
          id: 'call_convert_good',
          name: 'convert_currency',
          arguments: { amount: 100, from: 'EUR', to: 'USD' },
        },
      ],
    ],
    answer: '100 EUR is 108 USD.',
  },
  {
    testCaseId: 'tool-not-offered',
    prompt: 'Cancel my booking B-42.',
    turns: [[{ id: 'call_delete', name: 'delete_booking', arguments: { bookingId: 'B-42' } }]],
    answer: 'I cannot cancel bookings.',
  },
  {
    testCaseId: 'tool-throws',
    prompt: 'What is the weather in Atlantis?',
    turns: [[{ id: 'call_atlantis', name: 'get_weather', arguments: { city: 'Atlantis' } }]],
    answer: 'I could not get the weather in Atlantis.',
  },
  {
    testCaseId: 'repeated-call',
    prompt: 'Is it still sunny in Paris?',
    turns: [1, 2, 3].map(n => [
      { id: `call_repeat_${n}`, name: 'get_weather', arguments: { city: 'Paris' } },
    ]),
    answer: 'Yes, still sunny in Paris.',
  },
];

/** A scripted server that answers a health scenario's turns in order, then its answer. */
export function healthServer(scenario: HealthScenario): Promise<OpenAiCompatibleServer> {
  return startOpenAiCompatibleServer([
    ...scenario.turns.map(calls => toolCallCompletion(MODEL, calls)),
    textCompletion(MODEL, scenario.answer),
  ]);
}

/**
 * What a plain agent loop (no framework: the OpenTelemetry instrumentation captures) answers the
 * model for one call, as the OpenAI function-calling guides do: the tool's JSON result, or
 * `{"error": …}` when the arguments fail the tool's schema, the tool is not one the agent has, or
 * it throws.
 */
export function loopToolResult(name: string, rawArguments: string): string {
  const tool = HEALTH_TOOLS[name as HealthToolName];
  if (!tool) return JSON.stringify({ error: `unknown tool ${name}` });
  let args: unknown;
  try {
    args = JSON.parse(rawArguments);
  } catch {
    return JSON.stringify({ error: `arguments of ${name} are not JSON` });
  }
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success)
    return JSON.stringify({ error: `invalid arguments for ${name}: ${parsed.error.message}` });
  try {
    return JSON.stringify(runHealthTool(name, parsed.data));
  } catch (error) {
    return JSON.stringify({ error: (error as Error).message });
  }
}

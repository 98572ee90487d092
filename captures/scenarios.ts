/**
 * The three scenarios every framework capture runs, each against its own scripted
 * OpenAI-compatible server: one tool; two tools in order; the same tool twice in one model turn.
 * The model's replies and the tools' results are fixed here, so each capture's golden
 * expectations (`test/fixtures/expected/captured-<framework>-<version>.tool-calls.json`) can be
 * written from this file alone.
 */
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
  type OpenAiCompatibleServer,
} from '../test/helpers/openai-compatible-server.js';

export const MODEL = 'gpt-capture';

/** The tools the agents can call, with JSON-schema parameters for the model request. */
export const TOOLS = {
  get_weather: {
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
    run: (args: { city: string }) => ({
      city: args.city,
      temperatureC: args.city === 'Paris' ? 18 : 21,
      condition: 'sunny',
    }),
  },
  search_flights: {
    description: 'Search flights between two airports on a date',
    parameters: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' }, date: { type: 'string' } },
      required: ['from', 'to', 'date'],
    },
    run: (args: { from: string; to: string; date: string }) => ({
      flights: [{ id: 'TP541', from: args.from, to: args.to, date: args.date }],
    }),
  },
  book_flight: {
    description: 'Book a flight by id',
    parameters: {
      type: 'object',
      properties: { flightId: { type: 'string' } },
      required: ['flightId'],
    },
    run: (args: { flightId: string }) => ({ confirmation: `CONF-${args.flightId}` }),
  },
} as const;

export type ToolName = keyof typeof TOOLS;

/** {@link TOOLS} as the `tools` of an OpenAI chat completion request. */
export const OPENAI_TOOLS = Object.entries(TOOLS).map(([name, t]) => ({
  type: 'function' as const,
  function: { name, description: t.description, parameters: t.parameters },
}));

/** Runs a tool of {@link TOOLS} on parsed arguments. */
export function runTool(name: string, args: unknown): unknown {
  const tool = TOOLS[name as ToolName];
  if (!tool) throw new Error(`unknown tool ${name}`);
  return (tool.run as (a: unknown) => unknown)(args);
}

export interface Scenario {
  /** The test case id the capture attaches to the trace. */
  testCaseId: string;
  prompt: string;
  /** The model's turns: tool calls (one turn may ask for several), then the final answer. */
  turns: Array<Array<{ id: string; name: ToolName; arguments: Record<string, string> }>>;
  answer: string;
}

export const SCENARIOS: Scenario[] = [
  {
    testCaseId: 'one-tool',
    prompt: 'What is the weather in Paris?',
    turns: [[{ id: 'call_weather_paris', name: 'get_weather', arguments: { city: 'Paris' } }]],
    answer: 'It is sunny and 18 °C in Paris.',
  },
  {
    testCaseId: 'two-tools-in-order',
    prompt: 'Book the first flight from BER to LIS on 2026-12-01.',
    turns: [
      [
        {
          id: 'call_search',
          name: 'search_flights',
          arguments: { from: 'BER', to: 'LIS', date: '2026-12-01' },
        },
      ],
      [{ id: 'call_book', name: 'book_flight', arguments: { flightId: 'TP541' } }],
    ],
    answer: 'Booked TP541, confirmation CONF-TP541.',
  },
  {
    testCaseId: 'same-tool-twice',
    prompt: 'What is the weather in Paris and in Lisbon?',
    turns: [
      [
        { id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } },
        { id: 'call_weather_2', name: 'get_weather', arguments: { city: 'Lisbon' } },
      ],
    ],
    answer: 'Paris: sunny, 18 °C. Lisbon: sunny, 21 °C.',
  },
];

/** A scripted server that answers a scenario's turns in order, then its answer. */
export function scenarioServer(scenario: Scenario): Promise<OpenAiCompatibleServer> {
  return startOpenAiCompatibleServer([
    ...scenario.turns.map(calls => toolCallCompletion(MODEL, calls)),
    textCompletion(MODEL, scenario.answer),
  ]);
}

import { trace as otelTrace } from '@opentelemetry/api';
import { trace } from '../capture/trace-decorator.js';
import { withTestCase } from '../capture/with-test-case.js';

// One argument object per call, as a model sends them (and as the schemas below describe them).
const asObject =
  (...names: string[]) =>
  (args: unknown[]): Record<string, unknown> =>
    Object.fromEntries(names.map((name, i) => [name, args[i]]));

/** The demo agent's tools: plain methods made `execute_tool` spans by `@trace`. */
export class TravelTools {
  @trace({
    description: 'Current weather for a city',
    captureArguments: true,
    captureResult: true,
    mapArguments: asObject('city'),
  })
  async getWeather(city: string): Promise<{ city: string; tempC: number; sky: string }> {
    await pause();
    if (city === 'Atlantis') throw new Error('no weather station in Atlantis');
    return { city, tempC: 18, sky: 'sunny' };
  }

  @trace({
    name: 'search_flights',
    description: 'Find flights between two airports',
    captureArguments: true,
    mapArguments: asObject('from', 'to'),
  })
  async searchFlights(from: string, to: string): Promise<string[]> {
    await pause();
    return [`${from}-${to} TP541`, `${from}-${to} LH1170`];
  }

  @trace({
    name: 'book_flight',
    description: 'Book a flight by number',
    captureArguments: true,
    captureResult: true,
    mapArguments: asObject('flight'),
  })
  async bookFlight(flight: string): Promise<{ confirmation: string }> {
    await pause();
    return { confirmation: `CONF-${flight.split(' ')[1] ?? flight}` };
  }

  @trace({ name: 'search_web', description: 'Search the web' })
  async searchWeb(query: string): Promise<string[]> {
    await pause();
    return [`result for ${query}`];
  }
}

const text = (description: string, extra: Record<string, unknown> = {}) => ({
  type: 'string',
  description,
  ...extra,
});
const airport = (description: string) =>
  text(`${description}: an IATA airport code`, { pattern: '^[A-Z]{3}$' });

/**
 * The tools as the agent offers them to its model: names, descriptions and the JSON Schema of
 * their arguments (OpenAI's function shape), recorded on each run's model span as
 * `gen_ai.tool.definitions`, so tool health checks every call's arguments.
 */
export const TOOL_DEFINITIONS = [
  ['getWeather', 'Current weather for a city', { city: text('The city') }],
  [
    'search_flights',
    'Find flights between two airports',
    { from: airport('Where from'), to: airport('Where to') },
  ],
  [
    'book_flight',
    'Book a flight by number',
    { flight: text('The flight, as search_flights gives it') },
  ],
  ['search_web', 'Search the web', { query: text('What to search for') }],
].map(([name, description, properties]) => ({
  type: 'function',
  function: {
    name,
    description,
    parameters: {
      type: 'object',
      properties,
      required: Object.keys(properties as object),
      additionalProperties: false,
    },
  },
}));

/**
 * A scripted agent (no model): each test case runs the tool calls a model might have chosen.
 * `wrong-tool` answers a weather question with a web search, so the demo shows a failing score.
 * Then three runs as production traffic, with no test case id, for tool health to find: a tool
 * that throws, the same call three times, and a call whose arguments its schema rejects (a city
 * name where an airport code belongs). Each run records the tools offered to its model, with
 * their schemas ({@link TOOL_DEFINITIONS}). Returns the runs' names, in order.
 */
export async function runSampleAgent(tools = new TravelTools()): Promise<string[]> {
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['weather-lisbon', () => tools.getWeather('Lisbon')],
    ['book-trip', async () => tools.bookFlight((await tools.searchFlights('BER', 'LIS'))[0]!)],
    ['wrong-tool', () => tools.searchWeb('weather in Oslo')],
  ];
  for (const [id, run] of cases) await withTestCase(id, withModel(run));
  const production: Array<[string, () => Promise<unknown>]> = [
    ['production: a tool that fails', () => tools.getWeather('Atlantis').catch(() => undefined)],
    [
      'production: the same call three times',
      async () => {
        for (let i = 0; i < 3; i++) await tools.getWeather('Paris');
      },
    ],
    ['production: invalid arguments', () => tools.searchFlights('Berlin', 'LIS')],
  ];
  for (const [name, run] of production) await inRun(name, withModel(run));
  return [...cases, ...production].map(([name]) => name);
}

/** How many of {@link runSampleAgent}'s runs are the demo suite's test cases (the rest: tool health). */
export const DEMO_TEST_CASES = 3;

/**
 * `run` after a model span that records the tools offered to the model, with their schemas (a
 * scripted agent's stand-in for the chat call that chose the tools).
 */
function withModel(run: () => Promise<unknown>): () => Promise<unknown> {
  return () => {
    otelTrace
      .getTracer('spanscore-demo')
      .startSpan('chat scripted-model', {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'scripted-model',
          'gen_ai.tool.definitions': JSON.stringify(TOOL_DEFINITIONS),
        },
      })
      .end();
    return run();
  };
}

/** A run of the agent under a root span of its own (as a framework's agent span would be). */
function inRun(name: string, run: () => Promise<unknown>): Promise<unknown> {
  return otelTrace
    .getTracer('spanscore-demo')
    .startActiveSpan(`invoke_agent travel (${name})`, async span => {
      try {
        return await run();
      } finally {
        span.end();
      }
    });
}

function pause(): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, 5));
}

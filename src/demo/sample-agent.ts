import { trace as otelTrace } from '@opentelemetry/api';
import { trace } from '../capture/trace-decorator.js';
import { withTestCase } from '../capture/with-test-case.js';

/** The demo agent's tools: plain methods made `execute_tool` spans by `@trace`. */
export class TravelTools {
  @trace({ description: 'Current weather for a city', captureArguments: true, captureResult: true })
  async getWeather(city: string): Promise<{ city: string; tempC: number; sky: string }> {
    await pause();
    if (city === 'Atlantis') throw new Error('no weather station in Atlantis');
    return { city, tempC: 18, sky: 'sunny' };
  }

  @trace({
    name: 'search_flights',
    description: 'Find flights between two airports',
    captureArguments: true,
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

/**
 * A scripted agent (no model): each test case runs the tool calls a model might have chosen.
 * `wrong-tool` answers a weather question with a web search, so the demo shows a failing score.
 * Then two runs as production traffic, with no test case id, for tool health to find: a tool
 * that throws, and the same call three times. Returns the runs' names, in order.
 */
export async function runSampleAgent(tools = new TravelTools()): Promise<string[]> {
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['weather-lisbon', () => tools.getWeather('Lisbon')],
    ['book-trip', async () => tools.bookFlight((await tools.searchFlights('BER', 'LIS'))[0]!)],
    ['wrong-tool', () => tools.searchWeb('weather in Oslo')],
  ];
  for (const [id, run] of cases) await withTestCase(id, run);
  const production: Array<[string, () => Promise<unknown>]> = [
    ['production: a tool that fails', () => tools.getWeather('Atlantis').catch(() => undefined)],
    [
      'production: the same call three times',
      async () => {
        for (let i = 0; i < 3; i++) await tools.getWeather('Paris');
      },
    ],
  ];
  for (const [name, run] of production) await inRun(name, run);
  return [...cases, ...production].map(([name]) => name);
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

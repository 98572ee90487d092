import { trace } from '../capture/trace-decorator.js';
import { withTestCase } from '../capture/with-test-case.js';

/** The demo agent's tools: plain methods made `execute_tool` spans by `@trace`. */
export class TravelTools {
  @trace({ description: 'Current weather for a city', captureArguments: true, captureResult: true })
  async getWeather(city: string): Promise<{ city: string; tempC: number; sky: string }> {
    await pause();
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
 */
export async function runSampleAgent(tools = new TravelTools()): Promise<string[]> {
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['weather-lisbon', () => tools.getWeather('Lisbon')],
    ['book-trip', async () => tools.bookFlight((await tools.searchFlights('BER', 'LIS'))[0]!)],
    ['wrong-tool', () => tools.searchWeb('weather in Oslo')],
  ];
  for (const [id, run] of cases) await withTestCase(id, run);
  return cases.map(([id]) => id);
}

function pause(): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, 5));
}

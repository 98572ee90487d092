import { traced } from 'spanscore';

// The agent's tools. traced() makes every call an OpenTelemetry `execute_tool` span; inside
// captureTrace() their arguments and results are recorded too.
export const searchFlights = traced(
  'searchFlights',
  async (query: { from: string; to: string; date: string }) => [
    { flight: `${query.from}-${query.to}-1`, price: 120 },
    { flight: `${query.from}-${query.to}-2`, price: 95 },
  ],
);

export const bookFlight = traced('book_flight', async (flight: string) => ({
  flight,
  confirmation: `CONF-${flight}`,
}));

export const getWeather = traced('functions.get_weather', async (city: string) => ({
  city,
  forecast: 'sunny',
}));

/**
 * A scripted stand-in for an LLM agent: it picks tools from the request. In your project this is
 * your real agent (Vercel AI SDK, LangChain, OpenAI Agents, …); anything it traces is captured.
 */
export async function travelAgent(request: string): Promise<string> {
  const to = /to (\w+)/.exec(request)?.[1] ?? 'PAR';
  const answer: string[] = [];
  if (/weather/i.test(request)) {
    const weather = await getWeather(to);
    answer.push(`${to} will be ${weather.forecast}.`);
  }
  if (/book|flight/i.test(request)) {
    const flights = await searchFlights({ from: 'LON', to, date: '2026-12-01' });
    const cheapest = flights.reduce((a, b) => (b.price < a.price ? b : a));
    if (/book/i.test(request)) {
      const booking = await bookFlight(cheapest.flight);
      answer.push(`Booked ${booking.flight} (${booking.confirmation}).`);
    } else answer.push(`Cheapest: ${cheapest.flight} at ${cheapest.price}.`);
  }
  return answer.join(' ') || 'How can I help with your trip?';
}

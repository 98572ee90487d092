import { describe, expect, it } from 'vitest';
import { defineScorer } from 'spanscore';
import { captureTrace } from 'spanscore/vitest';
import { travelAgent } from './travel-agent.js';

describe('travel agent', () => {
  it('searches, then books the cheapest flight', async () => {
    const run = await captureTrace(() => travelAgent('Book me a flight to NYC'), {
      testCaseId: 'book-nyc',
    });

    expect(run.result).toBe('Booked LON-NYC-2 (CONF-LON-NYC-2).');
    // Names compare after normalization: searchFlights ≡ search_flights ≡ functions.search_flights.
    expect(run).toHaveUsedTools(['search_flights', 'book_flight']);
    expect(run).toHaveCalledTool('search_flights', { to: 'NYC' });
    expect(run).toHaveCalledTool('book_flight', 'LON-NYC-2');
    expect(run).toHaveCalledToolsInOrder(['search_flights', 'book_flight']);
    expect(run).not.toHaveCalledTool('get_weather');
  });

  it('answers a weather question with the weather tool only', async () => {
    const run = await captureTrace(() => travelAgent('What is the weather to ROM?'));
    expect(run).toHaveUsedTools(['get_weather']);
    expect(run.toolSequence[0]?.result).toEqual({ city: 'ROM', forecast: 'sunny' });
  });

  it('passes the same scorers a suite runs', async () => {
    const run = await captureTrace(() => travelAgent('Weather and a flight to OSL, book it'));
    expect(run).toHaveCalledToolsInOrder(['get_weather', 'book_flight'], { match: 'subsequence' });
    await expect(run).toPassScorer('tool_trajectory', {
      expectedCalls: [
        { name: 'get_weather', args: 'OSL' },
        { name: 'search_flights', args: { from: 'LON', to: 'OSL' } },
        { name: 'book_flight' },
      ],
    });
    const atMostThreeCalls = defineScorer({
      name: 'at_most_three_calls',
      score: trace => ({
        score: trace.toolSequence.length <= 3 ? 1 : 0,
        reason: `${trace.toolSequence.length} tool calls`,
      }),
    });
    await expect(run).toPassScorer(atMostThreeCalls);
  });

  // Each capture has its own async context: concurrent tests never see each other's spans.
  it.concurrent.for(['MAD', 'LIS', 'BER'])('searches flights to %s', async (to, { expect }) => {
    const run = await captureTrace(() => travelAgent(`Any flight to ${to}?`));
    expect(run).toHaveCalledToolsInOrder([{ name: 'search_flights', args: { to } }]);
  });
});

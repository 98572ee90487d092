import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { parseSuite } from '../../src/suite/load-suite.js';
import { commandCalls } from '../helpers/command-calls.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { agentTrace } from '../helpers/trace-builder.js';

/**
 * The Redis results store's `amendRun` on a Redis server of the test's own, for both results
 * layouts: a pass another process writes while a record is being amended keeps its record line
 * (the amendment is made to it), and what an amendment costs is counted in commands.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const SUITE = `
name: travel
scorers: [tool_correctness]
testCases:
  - id: book
    expectedTool: book_flight
`;

const retention = {
  maxResults: 1000,
  maxRuns: 1000,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

async function twoProcesses(layout: 1 | 2) {
  const server = await startRedisServer();
  closers.push(() => server.stop());
  const connect = async () => {
    const c = createRedisConnection(server.url, 'commands');
    closers.push(() => c.quit());
    await whenReady(c, 10_000);
    return c;
  };
  const [a, b] = [await connect(), await connect()];
  const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
  const storeA = createRedisResultsStore(a, 'p', retention, { layout });
  const storeB = createRedisResultsStore(b, 'p', retention, { layout });
  const pass = (store: ResultsStore, traceId: string, calls: string[]) =>
    scoreTrace(traceId, agentTrace(calls, { testCaseId: 'book' }).spans, plan, {
      sinks: [resultsStoreSink(store, { exportState: 'disabled' })],
    });
  const probe = new Redis(server.url);
  closers.push(() => probe.quit());
  return { server, a, storeA, storeB, pass, probe };
}

describe.each([1, 2] as const)('amendRun on Redis, results layout %i', layout => {
  it('amends the pass another process wrote between its read and its write, never the pass before', async () => {
    const { a, storeA, storeB, pass } = await twoProcesses(layout);
    const traceId = 'a'.repeat(32);
    await pass(storeA, traceId, ['search_flights']);
    expect((await storeA.run(traceId))!.toolCalls.map(c => c.name)).toEqual(['search_flights']);
    // Process B scores the trace again just after A read the record to amend it.
    const get = a.get.bind(a);
    let raced = false;
    a.get = async (...args: Parameters<typeof get>) => {
      const read = await get(...args);
      if (!raced) {
        raced = true;
        await pass(storeB, traceId, ['search_flights', 'book_flight']);
        await storeB.run(traceId);
      }
      return read;
    };
    // A's round trips: its read, then a script call per record line it amended.
    const sent: string[] = [];
    const send = a.sendCommand.bind(a);
    a.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      sent.push(command.name);
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as typeof a.sendCommand;
    await storeA.amendRun(traceId, {
      reason: 'corrected',
      diagnostic: { code: 'c', message: 'm' },
    });
    expect(raced).toBe(true);
    expect(sent.filter(name => name !== 'eval')).toEqual(['get', 'evalsha', 'evalsha']);
    const record = (await storeB.run(traceId))!;
    // B's pass, amended: its calls and result, the amendment's reason and finding.
    expect(record.toolCalls.map(c => c.name)).toEqual(['search_flights', 'book_flight']);
    expect(record.results.map(r => r.toolsUsed)).toEqual([['search_flights', 'book_flight']]);
    expect(record.reason).toBe('corrected');
    expect(record.diagnostics).toContainEqual({ code: 'c', message: 'm' });
  });

  it('costs one read and one script call (a GET and a SET inside it) when nothing races it', async () => {
    const { storeA, pass, probe } = await twoProcesses(layout);
    const traceId = 'b'.repeat(32);
    await pass(storeA, traceId, ['book_flight']);
    await storeA.run(traceId);
    const before = await commandCalls(probe);
    await storeA.amendRun(traceId, { reason: 'corrected' });
    const after = await commandCalls(probe);
    // A script's first call is an EVAL (ioredis's EVALSHA finds it unloaded, and is not counted).
    const spent = Object.fromEntries(
      [...after]
        .map(
          ([name, n]) => [name === 'evalsha' ? 'eval' : name, n - (before.get(name) ?? 0)] as const,
        )
        .filter(([name, n]) => n > 0 && name !== 'info'),
    );
    expect(spent).toEqual({ get: 2, eval: 1, set: 1 });
    expect((await storeA.run(traceId))!.reason).toBe('corrected');
  });
});

import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunResults } from '../../src/redis/read-run-results.js';
import { passResultLines } from '../../src/redis/result-lines.js';
import { parseRunValue, pointerLine } from '../../src/redis/run-record-layout.js';
import { compactRecordLine } from '../../src/results/compact-run-record.js';
import { MAX_RESULTS_PER_RUN, type StoredResult } from '../../src/results/stored-result.js';
import { commandCalls } from '../helpers/command-calls.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

// Layout 2's run records read against the stream on a Redis server of this file's own, whose
// XRANGE calls are counted (`INFO commandstats`) with no other test's commands among them.

const TRACE = 'a'.repeat(32);
const STREAM = 'test:results';

const result = (i: number, traceId = TRACE): Omit<StoredResult, 'id'> => ({
  timeUnixMs: 1_795_894_422_753 + i,
  traceId,
  targetKind: 'test_case',
  suite: 'travel',
  testCaseId: 'book',
  scorer: `scorer_${i}`,
  scorerKind: 'deterministic',
  scorerVersion: 'v1',
  phase: 'all',
  status: 'scored',
  score: i % 2,
  label: i % 2 ? 'pass' : 'fail',
  reason: `reason ${i}`,
  expectedTools: null,
  toolSequence: ['search'],
  toolsUsed: ['search'],
  serviceName: 'agent',
  serviceVersion: null,
  deploymentEnvironment: null,
  agentName: null,
  judgeCostUsd: null,
});

const record = compactRecordLine(
  {
    traceId: TRACE,
    state: 'scored',
    reason: null,
    testCaseId: null,
    testCaseIdAttribute: null,
    serviceName: 'agent',
    serviceVersion: null,
    deploymentEnvironment: null,
    diagnostics: [],
    matched: [],
    awaitingJudge: [],
    receivedAtUnixMs: null,
    updatedAtUnixMs: 1,
    toolCalls: [],
    contentKept: true,
  },
  TRACE,
);

const codes = (n: number): string => 'f'.repeat(n);

let server: RedisServer;
let redis: Redis;

beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

/** Adds one stream entry holding `lines`, as the writer does; its id. */
const addEntry = async (lines: string[]): Promise<string> =>
  (await redis.xadd(STREAM, '*', 'r', lines.join('\n')))!;

/** `value`'s record read as the store reads it, and the XRANGE calls that took. */
async function read(lines: string[]) {
  const before = (await commandCalls(redis)).get('xrange') ?? 0;
  const parsed = parseRunValue(TRACE, ['E', record, ...lines].join('\n'));
  const [run] = await readRunResults(redis, STREAM, [{ traceId: TRACE, parsed }]);
  const xranges = ((await commandCalls(redis)).get('xrange') ?? 0) - before;
  return { run: run!, xranges };
}

describe('layout 2 run records read from the stream', () => {
  it('a hostile record of many passes reads one entry a kept result at most', async () => {
    // 300 judge passes of one result each, each in its own entry, and 1,000 pointers to no
    // results in entries of their own (no writer writes them; a value is not trusted).
    const pointers: string[] = [];
    for (let i = 0; i < 300; i++) {
      const id = await addEntry(passResultLines([result(i)]));
      pointers.push(pointerLine(id, 0, 'f'));
      if (i >= 100) for (let k = 0; k < 5; k++) pointers.push(pointerLine(`${i + 1}-${k}`, 0, ''));
    }
    const { run, xranges } = await read(pointers);
    expect(run.results).toHaveLength(MAX_RESULTS_PER_RUN);
    expect(run.results[0]!.scorer).toBe('scorer_200');
    expect(run.resultsDropped).toBeUndefined();
    expect(xranges).toBe(MAX_RESULTS_PER_RUN);
  });

  it('a pass of 100 results, a pass added after it, and one replacing both', async () => {
    const hundred = Array.from({ length: MAX_RESULTS_PER_RUN }, (_, i) => result(i));
    // The entry holds another trace's pass before and after this one's.
    const other = [result(0, 'b'.repeat(32)), result(1, 'b'.repeat(32))];
    const id = await addEntry([
      ...passResultLines(other),
      ...passResultLines(hundred),
      ...passResultLines(other),
    ]);
    const full = pointerLine(id, 2, codes(100));
    const first = await read([full]);
    expect(first.run.results.map(r => r.scorer)).toEqual(hundred.map(r => r.scorer));
    expect(first.run.results.at(-1)!.id).toBe(`${TRACE}:99`);
    expect(first.xranges).toBe(1);
    // A judge pass appended: the oldest result falls out of the newest 100.
    const judgeId = await addEntry(passResultLines([result(100)]));
    const appended = await read([full, pointerLine(judgeId, 0, 'f')]);
    expect(appended.run.results).toHaveLength(100);
    expect(appended.run.results[0]!.scorer).toBe('scorer_1');
    expect(appended.run.results[99]!.scorer).toBe('scorer_100');
    expect(appended.run.resultsDropped).toBeUndefined();
    // A rescore: its SET leaves only its own pointer.
    const rescoreId = await addEntry(passResultLines([result(7), result(8)]));
    const rescored = await read([pointerLine(rescoreId, 0, 'ff')]);
    expect(rescored.run.results.map(r => r.scorer)).toEqual(['scorer_7', 'scorer_8']);
  });

  it('pointers at entries gone, or at lines of another pass, count as dropped', async () => {
    const id = await addEntry([...passResultLines([result(0, 'b'.repeat(32)), result(1)])]);
    const kept = await addEntry(passResultLines([result(5)]));
    const { run } = await read([
      pointerLine('1-1', 0, 'ff'), // an entry the stream no longer holds
      pointerLine(id, 0, 'ff'), // starts on another trace's result
      pointerLine(kept, 0, 'p'),
    ]);
    expect(run.results.map(r => r.scorer)).toEqual(['scorer_5']);
    expect(run.resultsDropped).toBe(4);
  });

  it('a difference line whose base is not above it reads as no result, never as another', () => {
    const [base, diff] = passResultLines([result(0), result(1)]);
    // Inline lines of a value: a pointer line above the difference line, then a whole one.
    const parsed = parseRunValue(
      TRACE,
      ['E', record, pointerLine('1-0', 0, 'f'), diff!, base!, diff!].join('\n'),
    );
    expect(parsed.lines).toHaveLength(3);
    expect(parsed.lines.slice(1).map(l => ('result' in l ? l.result.scorer : l))).toEqual([
      'scorer_0',
      'scorer_1',
    ]);
  });
});

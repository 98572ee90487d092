import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryResultsStore } from '../../src/results/memory-results-store.js';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import { scoreSession } from '../../src/score/score-session.js';
import { sessionRecordKey } from '../../src/results/run-record-key.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { parseSuite } from '../../src/suite/load-suite.js';
import { createRedisConnection, whenReady } from '../../src/redis/redis-connection.js';
import { clusterForTests } from '../helpers/redis-cluster.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { judgedPass } from '../helpers/judged-pass.js';
import { agentTrace, type CallInput } from '../helpers/trace-builder.js';
import { toolHealthPlan } from '../helpers/tool-health-plan.js';

/**
 * The results-store contract, run against both stores: the memory ring and Redis, one server and
 * a 3-master Redis Cluster. Traces are scored by the real per-trace loop into the store's sink;
 * the store is then read back.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const SUITE = `
name: travel
scorers: [tool_correctness, tool_call_accuracy]
testCases:
  - id: book
    expectedTool: search_flights
    expectedTools: [search_flights, book_flight]
  - id: weather
    expectedTool: get_weather
    expectedTools: [get_weather]
`;

const retention = {
  maxResults: 1000,
  maxRuns: 1000,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

const stores: Record<string, () => Promise<ResultsStore>> = {
  memory: () => Promise.resolve(createMemoryResultsStore(retention)),
  redis: async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    return createRedisResultsStore(redis.commands, prefix, retention);
  },
  // The same store writing results layout 2 (`results.layout`): results in the stream only.
  'redis, layout 2': async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    return createRedisResultsStore(redis.commands, prefix, retention, { layout: 2 });
  },
  'redis cluster': async () => {
    const commands = createRedisConnection({ clusterNodes: cluster().nodes }, 'commands');
    closers.push(async () => commands.disconnect());
    await whenReady(commands, 5000);
    return createRedisResultsStore(commands, testPrefix(), retention);
  },
  'redis cluster, layout 2': async () => {
    const commands = createRedisConnection({ clusterNodes: cluster().nodes }, 'commands');
    closers.push(async () => commands.disconnect());
    await whenReady(commands, 5000);
    return createRedisResultsStore(commands, testPrefix(), retention, { layout: 2 });
  },
};

/** One 3-master cluster for the file's cluster tests, formed before them. */
const cluster = clusterForTests({ masters: 3 });

async function feed(store: ResultsStore): Promise<Record<string, string>> {
  const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
  const ids: Record<string, string> = {};
  const run = async (name: string, calls: CallInput[], testCaseId?: string) => {
    const trace = agentTrace(calls, testCaseId ? { testCaseId } : {});
    ids[name] = trace.traceId;
    await scoreTrace(trace.traceId, trace.spans, plan, {
      sinks: [resultsStoreSink(store, { exportState: 'pending' })],
    });
  };
  await run('book-ok', ['search_flights', 'book_flight'], 'book');
  await run('weather-ok', ['get_weather'], 'weather');
  await run('weather-wrong', ['search_web'], 'weather');
  await run('unknown-case', ['get_weather'], 'no-such-case');
  await run('no-id', ['get_weather']);
  return ids;
}

/**
 * Traces scored by tool health alone: a call that works, one with invalid arguments and one to a
 * tool never offered; a call that fails; the same call three times. Every tool span runs 5 ms.
 */
async function feedToolHealth(store: ResultsStore): Promise<void> {
  const plan = toolHealthPlan();
  const offered = [
    {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ];
  const traces = [
    agentTrace(
      [
        { name: 'get_weather', args: { city: 'Paris' }, result: {} },
        { name: 'get_weather', args: { town: 'Lyon' }, result: {} },
        { name: 'delete_booking', args: {}, result: {} },
      ],
      { offered },
    ),
    agentTrace([{ name: 'get_weather', args: { city: 'Atlantis' }, error: 'no station' }], {
      offered,
    }),
    agentTrace(
      [1, 2, 3].map(() => ({ name: 'get_weather', args: { city: 'Oslo' }, result: {} })),
      { offered },
    ),
  ];
  for (const trace of traces)
    await scoreTrace(trace.traceId, trace.spans, plan, {
      sinks: [resultsStoreSink(store, { exportState: 'pending' })],
    });
}

describe.each(Object.keys(stores))('the %s results store', name => {
  const make = stores[name]!;

  it('lists recent traces newest first, scored or not, with filters and a cursor', async () => {
    const store = await make();
    const ids = await feed(store);
    const all = await store.traces({}, 10);
    expect(all.traces.map(t => t.traceId)).toEqual(
      ['no-id', 'unknown-case', 'weather-wrong', 'weather-ok', 'book-ok'].map(n => ids[n]),
    );
    expect(all.nextCursor).toBeNull();
    // A trace nothing scored is not read for its tool calls.
    expect(all.traces[0]).toMatchObject({
      state: 'not_scored',
      serviceName: 'test-service',
      tools: [],
      toolCalls: 0,
      outcomes: { ok: 0, error: 0, refused: 0 },
      results: { pass: 0, fail: 0, skipped: 0, failed: 0 },
    });
    expect(all.traces[0]!.reason).toMatch(/no test case id/);
    expect(all.traces[2]).toMatchObject({
      state: 'scored',
      testCaseId: 'weather',
      matched: ['travel / weather'],
      tools: ['search_web'],
      results: { pass: 0, fail: 2 },
    });
    const notScored = await store.traces({ state: 'not_scored' }, 10);
    expect(notScored.traces.map(t => t.traceId)).toEqual([ids['no-id'], ids['unknown-case']]);
    const weather = await store.traces({ tool: 'get_weather', label: 'pass' }, 10);
    expect(weather.traces.map(t => t.traceId)).toEqual([ids['weather-ok']]);
    expect((await store.traces({ outcome: 'error' }, 10)).traces).toEqual([]);
    const first = await store.traces({}, 2);
    expect(first.traces.map(t => t.traceId)).toEqual([ids['no-id'], ids['unknown-case']]);
    const second = await store.traces({}, 2, first.nextCursor!);
    expect(second.traces.map(t => t.traceId)).toEqual([ids['weather-wrong'], ids['weather-ok']]);
    const third = await store.traces({}, 2, second.nextCursor!);
    expect(third.traces.map(t => t.traceId)).toEqual([ids['book-ok']]);
    expect(third.nextCursor).toBeNull();
  });

  it('counts tool calls per service and tool: outcomes, argument problems, loops, durations', async () => {
    const store = await make();
    await feedToolHealth(store);
    const tools = await store.tools(Date.now() - 3_600_000, Date.now() + 1000);
    expect(tools.tools.map(({ p50Ms: _p50, p95Ms: _p95, ...row }) => row)).toEqual([
      {
        service: 'test-service',
        tool: 'get_weather',
        calls: 6,
        errors: 1,
        refused: 0,
        checked: 6,
        checkedBySchema: { trace: 6, learned: 0, config: 0 },
        invalidArguments: 1,
        unknown: 0,
        repeated: 3,
        errorRate: 1 / 6,
        refusedRate: 0,
        invalidRate: 1 / 6,
        unknownRate: 0,
        repeatedRate: 0.5,
        versions: [],
        agents: [],
      },
      {
        service: 'test-service',
        tool: 'delete_booking',
        calls: 1,
        errors: 0,
        refused: 0,
        checked: 0,
        checkedBySchema: { trace: 0, learned: 0, config: 0 },
        invalidArguments: 0,
        unknown: 1,
        repeated: 0,
        errorRate: 0,
        refusedRate: 0,
        invalidRate: null,
        unknownRate: 1,
        repeatedRate: 0,
        versions: [],
        agents: [],
      },
    ]);
    // Every span ran 5 ms: both percentiles fall in the (2, 5] ms bucket.
    for (const row of tools.tools) {
      expect(row.p50Ms).toBeGreaterThan(2);
      expect(row.p95Ms).toBeLessThanOrEqual(5);
    }
    expect(tools.timeline.reduce((n, p) => n + p.calls, 0)).toBe(7);
    expect(tools.timeline.reduce((n, p) => n + p.errors, 0)).toBe(1);
    expect(
      (await store.tools(Date.now() - 3_600_000, Date.now() + 1000, { service: 'other' })).tools,
    ).toEqual([]);
  });

  it('summarizes per scorer, per test case and per minute, with traces not scored by reason', async () => {
    const store = await make();
    await feed(store);
    const s = await store.summary(Date.now() - 3_600_000, Date.now() + 1000);
    expect(s.total).toMatchObject({ count: 6, pass: 4, fail: 2, skipped: 0, failed: 0 });
    expect(s.total.passRate).toBeCloseTo(4 / 6, 10);
    expect(s.byScorer.map(g => [g.scorer, g.count, g.pass, g.fail, g.passRate])).toEqual([
      ['tool_call_accuracy', 3, 2, 1, 2 / 3],
      ['tool_correctness', 3, 2, 1, 2 / 3],
    ]);
    expect(s.byTarget.map(g => [g.testCaseId, g.scorer, g.passRate, g.meanScore])).toEqual([
      ['book', 'tool_call_accuracy', 1, 1],
      ['book', 'tool_correctness', 1, 1],
      ['weather', 'tool_call_accuracy', 0.5, 0.5],
      ['weather', 'tool_correctness', 0.5, 0.5],
    ]);
    expect(s.timeline.reduce((n, p) => n + p.pass + p.fail, 0)).toBe(6);
    expect(s.notScored.reduce((n, r) => n + r.count, 0)).toBe(2);
    // An unknown id counts under one reason, without the id (the run record names it).
    expect(s.notScored.map(r => r.reason)).toContain('test case id is in no suite');
    expect(s.notScored.map(r => r.reason).join(' | ')).toMatch(/no test case id/);

    const narrowed = await store.summary(Date.now() - 3_600_000, Date.now() + 1000, {
      testCase: 'weather',
      scorer: 'tool_correctness',
    });
    expect(narrowed.total).toMatchObject({ count: 2, pass: 1, fail: 1 });
  });

  it('lists results newest first with filters, and pages through them with a cursor', async () => {
    const store = await make();
    const ids = await feed(store);
    const fails = await store.results({ label: 'fail' }, 10);
    expect(fails.results.map(r => [r.traceId, r.scorer, r.score])).toEqual([
      [ids['weather-wrong'], 'tool_call_accuracy', 0],
      [ids['weather-wrong'], 'tool_correctness', 0],
    ]);
    expect(fails.results[1]).toMatchObject({
      testCaseId: 'weather',
      serviceVersion: null,
      deploymentEnvironment: null,
      suite: 'travel',
      targetKind: 'test_case',
      status: 'scored',
      reason: 'missing get_weather; unexpected search_web',
      expectedTools: ['get_weather'],
      toolSequence: ['search_web'],
      toolsUsed: ['search_web'],
      serviceName: 'test-service',
    });
    expect(fails.results[1]!.scorerVersion).toMatch(/^[0-9a-f]{12}$/);
    expect(fails.nextCursor).toBeNull();

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.results({}, 4, cursor);
      seen.push(...page.results.map(r => r.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect(
      (await store.results({ scorer: 'tool_correctness', testCase: 'book' }, 10)).results,
    ).toHaveLength(1);
    expect((await store.results({ traceId: ids['book-ok']! }, 10)).results).toHaveLength(2);
    expect((await store.results({ fromUnixMs: Date.now() + 60_000 }, 10)).results).toHaveLength(0);
  });

  it('keeps a run record for every trace: scored, not scored with why, failed with the error', async () => {
    const store = await make();
    const ids = await feed(store);
    const scored = await store.run(ids['weather-wrong']!);
    expect(scored).toMatchObject({
      state: 'scored',
      reason: null,
      testCaseId: 'weather',
      matched: ['travel / weather'],
      awaitingJudge: [],
    });
    expect(scored!.results.map(r => [r.scorer, r.label])).toEqual([
      ['tool_correctness', 'fail'],
      ['tool_call_accuracy', 'fail'],
    ]);
    const unknown = await store.run(ids['unknown-case']!);
    expect(unknown).toMatchObject({ state: 'not_scored', testCaseId: 'no-such-case', results: [] });
    expect(unknown!.reason).toContain('"no-such-case"');
    expect((await store.run(ids['no-id']!))!.reason).toMatch(/^no test case id/);
    expect(await store.run('f'.repeat(32))).toBeUndefined();

    await store.recordFailure(ids['book-ok']!, 'llm', new Error('judge unreachable'));
    const failed = await store.run(ids['book-ok']!);
    expect(failed).toMatchObject({
      state: 'failed',
      reason: 'the judge pass failed after its retries: judge unreachable',
      testCaseId: 'book',
    });
    expect(failed!.results).toHaveLength(2);
    expect((await store.summary(Date.now() - 60_000, Date.now() + 1000)).failedTraces).toBe(1);

    // A session part whose pass failed: its record keeps the part it was (turns, cut), listed as a session's.
    const part = {
      id: 'conv-f',
      part: 2,
      traceIds: [ids['book-ok']!],
      cut: 'evicted' as const,
      cutReason: 'let go',
      continues: 'idle' as const,
    };
    await store.recordFailure('session~2:conv-f', 'deterministic', new Error('sink down'), part);
    expect(await store.run('session~2:conv-f')).toMatchObject({
      state: 'failed',
      reason: 'scoring failed after its retries: sink down',
      session: part,
    });

    // A trace accepted and never scored: its record says expired and why, and the summary counts it.
    const lost = 'e'.repeat(32);
    await store.recordExpired(lost, 'its spans were no longer in Redis');
    expect(await store.run(lost)).toMatchObject({
      traceId: lost,
      state: 'expired',
      reason: 'its spans were no longer in Redis',
      results: [],
    });
    const summary = await store.summary(Date.now() - 60_000, Date.now() + 1000);
    expect(summary.notScored).toContainEqual({ reason: 'expired', count: 1 });
    expect(
      (await store.traces({ sessions: true }, 10)).traces.map(t => [t.traceId, t.state, t.session]),
    ).toEqual([
      [
        'session~2:conv-f',
        'failed',
        {
          id: 'conv-f',
          part: 2,
          traces: 1,
          cut: 'evicted',
          cutReason: 'let go',
          continues: 'idle',
        },
      ],
    ]);
  });

  it('amends a record in place: its reason replaced, a finding added, its results, export and counts kept', async () => {
    const store = await stores[name]!();
    const ids = await feed(store);
    await store.recordExport(ids['book-ok']!, { state: 'exported' });
    const before = (await store.run(ids['book-ok']!))!;
    const [from, to] = [Date.now() - 60_000, Date.now() + 60_000];
    const summaryBefore = await store.summary(from, to);
    const listedBefore = (await store.traces({}, 10)).traces.map(t => t.traceId);

    await store.amendRun(ids['book-ok']!, { reason: 'said again' });
    await store.amendRun(ids['book-ok']!, { diagnostic: { code: 'c', message: 'm' } });
    expect(await store.run(ids['book-ok']!)).toEqual({
      ...before,
      reason: 'said again',
      diagnostics: [...before.diagnostics, { code: 'c', message: 'm' }],
    });
    expect(before.results).toHaveLength(2);
    expect(before.export?.state).toBe('exported');
    expect(await store.summary(from, to)).toEqual(summaryBefore);
    expect((await store.traces({}, 10)).traces.map(t => t.traceId)).toEqual(listedBefore);
    // 20 findings at most: the 21st is not added.
    for (let i = 0; i < 25; i++)
      await store.amendRun(ids['book-ok']!, { diagnostic: { code: 'c', message: `${i}` } });
    expect((await store.run(ids['book-ok']!))!.diagnostics).toHaveLength(20);
    // No record, nothing written.
    await store.amendRun('f'.repeat(32), { reason: 'x' });
    expect(await store.run('f'.repeat(32))).toBeUndefined();
  });
});

const SESSION_SUITE = `
name: support
scorers: [tool_trajectory]
testCases:
  - id: conv
    session: true
    expectedCalls: [get_weather, book_flight]
`;

describe.each(Object.keys(stores))('the %s results store with parts of a session', name => {
  it('keeps each part apart: a later part never replaces part 1, a part only its own pass', async () => {
    const store = await stores[name]!();
    const plan: ScoringPlan = {
      suites: [await parseSuite(SESSION_SUITE, 'support.yaml', '.')],
      rules: [],
    };
    const sinks = [resultsStoreSink(store, { exportState: 'disabled' })];
    // A session id is any text: spaces and a colon too.
    const id = 'conv a: 1';
    const turnOf = (calls: CallInput[], atMs: number) => {
      const t = agentTrace(calls, { testCaseId: 'conv', atMs });
      return { traceId: t.traceId, spans: t.spans };
    };
    const t1 = turnOf(['get_weather'], 0);
    const t2 = turnOf(['book_flight'], 1000);
    const t3 = turnOf(['get_weather'], 2000);
    const evicted = { code: 'evicted' as const, reason: 'let go to make room' };
    await scoreSession(id, [t1, t2], plan, { sinks, pass: { part: 1, cut: evicted } });
    await scoreSession(id, [t3], plan, { sinks, pass: { part: 2, continues: 'evicted' } });

    const part1 = await store.run(sessionRecordKey(id));
    const part2 = await store.run(sessionRecordKey(id, 2));
    expect(part1!.session).toEqual({
      id,
      part: 1,
      traceIds: [t1.traceId, t2.traceId],
      cut: 'evicted',
      cutReason: 'let go to make room',
      continues: null,
    });
    expect(part2!.session).toEqual({
      id,
      part: 2,
      traceIds: [t3.traceId],
      cut: null,
      cutReason: null,
      continues: 'evicted',
    });
    expect(part1!.results.map(r => [r.scorer, r.label, r.sessionPart])).toEqual([
      ['tool_trajectory', 'pass', undefined],
    ]);
    expect(part2!.results.map(r => [r.scorer, r.label, r.sessionPart])).toEqual([
      ['tool_trajectory', 'fail', 2],
    ]);
    // Part 1 scored again (a turn came before it was let go): only part 1's pass is replaced.
    await new Promise(r => setTimeout(r, 5));
    await scoreSession(id, [t1], plan, { sinks, pass: { part: 1 } });
    const results = await store.results({}, 10);
    expect(results.results.map(r => [r.sessionPart ?? 1, r.traceId, r.label])).toEqual([
      [1, t1.traceId, 'fail'],
      [2, t3.traceId, 'fail'],
    ]);
    const summary = await store.summary(Date.now() - 3_600_000, Date.now() + 1000);
    expect(summary.sessions).toBe(2);
    expect(summary.total).toMatchObject({ count: 2, fail: 2 });
    const listed = await store.traces({ sessions: true }, 10);
    expect(
      listed.traces.map(t => [t.traceId, t.session?.part, t.session?.traces, t.session?.continues]),
    ).toEqual([
      [sessionRecordKey(id), 1, 1, null],
      [sessionRecordKey(id, 2), 2, 1, 'evicted'],
    ]);
  });
});

describe.each(Object.keys(stores))('the %s results store with a judge pass', name => {
  it('a rescore replaces the trace’s results: listed once, counted once, its calls counted once', async () => {
    const store = await stores[name]!();
    const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
    const sink = resultsStoreSink(store, { exportState: 'pending' });
    const first = agentTrace(['get_weather'], { testCaseId: 'weather' });
    // The same trace once a late span came: the agent also searched the web.
    const late = agentTrace(['get_weather', 'search_web'], { testCaseId: 'weather' });
    const other = agentTrace(['get_weather'], { testCaseId: 'weather' });
    await scoreTrace(first.traceId, first.spans, plan, { sinks: [sink] });
    await scoreTrace(other.traceId, other.spans, plan, { sinks: [sink] });
    expect((await store.results({ traceId: first.traceId }, 10)).results).toHaveLength(2);
    await new Promise(r => setTimeout(r, 5)); // the rescore comes later, as late spans do
    const rescored = late.spans.map(s => ({ ...s, traceId: first.traceId }));
    await scoreTrace(first.traceId, rescored, plan, { sinks: [sink] });

    const listed = await store.results({ traceId: first.traceId }, 10);
    // tool_call_accuracy asks for get_weather (called: pass); tool_correctness for exactly
    // [get_weather] (search_web is one too many: fail).
    expect(listed.results.map(r => [r.scorer, r.label, r.toolSequence])).toEqual([
      ['tool_call_accuracy', 'pass', ['get_weather', 'search_web']],
      ['tool_correctness', 'fail', ['get_weather', 'search_web']],
    ]);
    const all = await store.results({}, 10);
    expect(all.results.map(r => r.traceId)).toEqual([
      first.traceId,
      first.traceId,
      other.traceId,
      other.traceId,
    ]);
    expect((await store.run(first.traceId))!.results.map(r => [r.scorer, r.label])).toEqual([
      ['tool_correctness', 'fail'],
      ['tool_call_accuracy', 'pass'],
    ]);
    const s = await store.summary(Date.now() - 3_600_000, Date.now() + 1000);
    expect(s.total).toMatchObject({ count: 4, pass: 3, fail: 1 });
    expect(s.byScorer.map(g => [g.scorer, g.count, g.pass, g.fail])).toEqual([
      ['tool_call_accuracy', 2, 2, 0],
      ['tool_correctness', 2, 1, 1],
    ]);
    const tools = await store.tools(Date.now() - 3_600_000, Date.now() + 1000);
    expect(tools.tools.map(t => [t.tool, t.calls])).toEqual([
      ['get_weather', 2],
      ['search_web', 1],
    ]);
    expect(tools.timeline.reduce((n, p) => n + p.calls, 0)).toBe(3);
  });

  it('a rescore written in the same batch as the pass it replaces: only the rescore is listed', async () => {
    const store = await stores[name]!();
    const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
    const sink = resultsStoreSink(store, { exportState: 'pending' });
    const first = agentTrace(['search_web'], { testCaseId: 'weather' });
    const late = agentTrace(['search_web', 'get_weather'], { testCaseId: 'weather' });
    await scoreTrace(first.traceId, first.spans, plan, { sinks: [sink] });
    const rescored = late.spans.map(s => ({ ...s, traceId: first.traceId }));
    await scoreTrace(first.traceId, rescored, plan, { sinks: [sink] });
    const listed = await store.results({}, 10);
    expect(listed.results.map(r => [r.scorer, r.toolSequence])).toEqual([
      ['tool_call_accuracy', ['search_web', 'get_weather']],
      ['tool_correctness', ['search_web', 'get_weather']],
    ]);
    const s = await store.summary(Date.now() - 3_600_000, Date.now() + 1000);
    expect(s.total.count).toBe(2);
    const tools = await store.tools(Date.now() - 3_600_000, Date.now() + 1000);
    expect(tools.tools.map(t => [t.tool, t.calls])).toEqual([
      ['get_weather', 1],
      ['search_web', 1],
    ]);
  });

  it('a rescore takes back a trace counted as not scored', async () => {
    const store = await stores[name]!();
    const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
    const sink = resultsStoreSink(store, { exportState: 'pending' });
    // Its root came late: the first pass saw no test case id.
    const withId = agentTrace(['get_weather'], { testCaseId: 'weather' });
    const withoutId = withId.spans.filter(sp => sp.parentSpanId);
    await scoreTrace(withId.traceId, withoutId, plan, { sinks: [sink] });
    const before = await store.summary(Date.now() - 3_600_000, Date.now() + 1000);
    expect(before.notScored.reduce((n, r) => n + r.count, 0)).toBe(1);
    await scoreTrace(withId.traceId, withId.spans, plan, { sinks: [sink] });
    const after = await store.summary(Date.now() - 3_600_000, Date.now() + 1000);
    expect(after.notScored.reduce((n, r) => n + r.count, 0)).toBe(0);
    expect(after.total).toMatchObject({ count: 2, pass: 2 });
    expect((await store.run(withId.traceId))!.state).toBe('scored');
  });

  it('adds the judge pass’s results to the first pass’s, and clears what waited for the judge', async () => {
    const store = await stores[name]!();
    const trace = agentTrace(['get_weather'], { testCaseId: 'weather' });
    store.write(judgedPass(trace, 'deterministic'), { exportState: 'pending' });
    const waiting = await store.run(trace.traceId);
    expect(waiting).toMatchObject({
      state: 'scored',
      awaitingJudge: ['rubric'],
      reason: 'waiting for the judge: rubric',
    });
    store.write(judgedPass(trace, 'llm'), { exportState: 'pending' });
    const done = await store.run(trace.traceId);
    expect(done).toMatchObject({ state: 'scored', awaitingJudge: [], reason: null });
    expect(done!.results.map(r => [r.scorer, r.label, r.judgeCostUsd])).toEqual([
      ['tool_correctness', 'pass', null],
      ['rubric', 'fail', 0.0021],
    ]);
    const summary = await store.summary(Date.now() - 60_000, Date.now() + 1000);
    expect(summary.byScorer.find(g => g.scorer === 'rubric')).toMatchObject({
      count: 1,
      fail: 1,
      judgeCostUsd: 0.0021,
    });
  });
});

describe('bounds', () => {
  it('the memory store keeps the newest maxResults results and maxRuns run records', async () => {
    const store = createMemoryResultsStore({
      maxServices: 20,
      maxToolsPerService: 30,
      maxResults: 3,
      maxRuns: 2,
      retentionMs: 3_600_000,
      storeContent: true,
    });
    const ids = await feed(store);
    const page = await store.results({}, 10);
    expect(page.results).toHaveLength(3);
    expect(page.results.map(r => r.traceId)).toEqual([
      ids['weather-wrong'],
      ids['weather-wrong'],
      ids['weather-ok'],
    ]);
    expect(await store.run(ids['book-ok']!)).toBeUndefined();
    expect(await store.run(ids['no-id']!)).toBeDefined();
  });

  it('the memory store drops what is older than the retention', async () => {
    let now = Date.now();
    const store = createMemoryResultsStore(
      { ...retention, maxResults: 100, maxRuns: 100, retentionMs: 60_000 },
      () => now,
    );
    const ids = await feed(store);
    now += 120_000;
    expect((await store.results({}, 10)).results).toHaveLength(0);
    expect(await store.run(ids['book-ok']!)).toBeUndefined();
  });

  it.each([1, 2] as const)(
    'the redis store caps its stream and expires run records and minutes, results layout %i',
    async layout => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      await whenReady(redis.commands);
      let offset = 0;
      const store = createRedisResultsStore(
        redis.commands,
        prefix,
        { ...retention, maxResults: 5, maxRuns: 1, retentionMs: 600_000 },
        { now: () => Date.now() + offset, layout },
      );
      const fed: Array<Record<string, string>> = [];
      // Three writes (each a results page's read flushes the store), two seconds apart: one stream
      // entry of 6 results each. The newest entries holding at least 5 results stay: the last.
      for (let i = 0; i < 3; i++) {
        fed.push(await feed(store));
        offset += 2000;
        await store.results({}, 1);
      }
      await store.close(); // writes the per-minute counters it sums in the process
      const stream = `${prefix}:results:{r}:stream`;
      expect(await redis.commands.xlen(stream)).toBe(1);
      expect(await redis.commands.get(`${prefix}:results:{r}:count`)).toBe('6');
      const left = (await store.results({}, 100)).results;
      expect(left).toHaveLength(6);
      const lastTraces = new Set(Object.values(fed[2]!));
      expect(left.every(r => lastTraces.has(r.traceId))).toBe(true);

      const ttl = await redis.commands.pttl(`${prefix}:run:{${fed[0]!['book-ok']}}`);
      expect(ttl).toBeGreaterThan(590_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
      const minuteKeys = await redis.commands.keys(`${prefix}:results:{r}:m:*`);
      expect(minuteKeys.length).toBeGreaterThan(0);
      for (const key of minuteKeys) expect(await redis.commands.pttl(key)).toBeGreaterThan(600_000);

      // Past the retention by the store's clock (ahead of Redis's, which names the entries), the
      // next write's trim drops every entry, the new one too, and the count with them.
      offset += 700_000;
      await feed(store);
      await store.results({}, 1);
      expect(await redis.commands.xlen(stream)).toBe(0);
      expect(await redis.commands.get(`${prefix}:results:{r}:count`)).toBe('0');
      expect(await redis.commands.llen(`${prefix}:results:{r}:index`)).toBe(0);
    },
  );

  it.each([1, 2] as const)(
    'the redis store folds an export outcome into its run’s write, and records one that comes later, results layout %i',
    async layout => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      await whenReady(redis.commands);
      const store = createRedisResultsStore(redis.commands, prefix, retention, { layout });
      const ids = await feed(store);
      // Before the write: folded into it.
      await store.recordExport(ids['book-ok']!, { state: 'exported' });
      await store.recordExport(ids['weather-ok']!, { state: 'pending', error: 'HTTP 503' });
      expect((await store.run(ids['book-ok']!))!.export).toMatchObject({
        state: 'exported',
        attempts: 1,
        lastError: null,
      });
      // After it: rewritten in place, attempts counted on.
      await store.recordExport(ids['weather-ok']!, {
        state: 'failed',
        error: 'gave up:\n\t"HTTP 503"',
      });
      expect((await store.run(ids['weather-ok']!))!.export).toMatchObject({
        state: 'failed',
        attempts: 1,
        lastError: 'gave up:\n\t"HTTP 503"',
      });
      await store.recordExport(ids['weather-ok']!, { state: 'exported' });
      const record = (await store.run(ids['weather-ok']!))!;
      expect(record.export).toMatchObject({ state: 'exported', attempts: 2, lastError: null });
      expect(record.results).toHaveLength(2);
      // One key per run: no export hash beside it.
      expect(await redis.commands.exists(`${prefix}:run:{${ids['weather-ok']}}:export`)).toBe(0);
    },
  );

  it.each([1, 2] as const)(
    'the redis store holds a run back for its export’s outcome, by its own clock at most two seconds, results layout %i',
    async layout => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      await whenReady(redis.commands);
      let clock = Date.now();
      const store = createRedisResultsStore(redis.commands, prefix, retention, {
        now: () => clock,
        layout,
      });
      closers.push(() => store.close());
      // Another process's view: it reads Redis only.
      const reader = createRedisResultsStore(redis.commands, prefix, retention);
      const ids = await feed(store);
      // Written without waiting: nothing to export (no test case) or not scored.
      await vi.waitFor(async () => expect(await reader.run(ids['no-id']!)).toBeDefined());
      await store.recordExport(ids['book-ok']!, { state: 'exported' });
      await vi.waitFor(async () =>
        expect((await reader.run(ids['book-ok']!))?.export).toMatchObject({ state: 'exported' }),
      );
      // Still waiting for its outcome, the store's clock standing still: not written yet.
      expect(await reader.run(ids['weather-ok']!)).toBeUndefined();
      clock += 2001;
      await vi.waitFor(async () =>
        expect((await reader.run(ids['weather-ok']!))?.export).toMatchObject({
          state: 'pending',
          attempts: 0,
        }),
      );
    },
  );

  it('the redis store reads results, run records and counters written in the layout before', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    const t = Date.now();
    const result = {
      traceId: 'a'.repeat(32),
      scorer: 'tool_correctness',
      status: 'scored',
      score: 1,
      label: 'pass',
      timeUnixMs: t,
    };
    // One result per entry, a record line first and the export state in a hash of its own,
    // counters as plain hash fields.
    const id = await redis.commands.xadd(
      `${prefix}:results:{r}:stream`,
      '*',
      'r',
      JSON.stringify(result),
    );
    await redis.commands.set(
      `${prefix}:run:{${'a'.repeat(32)}}`,
      `${JSON.stringify({ traceId: 'a'.repeat(32), state: 'scored' })}\n${JSON.stringify(result)}`,
    );
    await redis.commands.hset(`${prefix}:run:{${'a'.repeat(32)}}:export`, {
      state: 'exported',
      attempts: 1,
      error: '',
      at: t,
    });
    const minute = t - (t % 60_000);
    const field = `r\u001f${JSON.stringify(['tool_correctness', 'suite', 's', 'c', 'svc'])}\u001fn`;
    await redis.commands.hset(`${prefix}:results:{r}:m:${minute}`, field, 3);
    const store = createRedisResultsStore(redis.commands, prefix, retention);
    const page = await store.results({}, 10);
    expect(page.results).toMatchObject([{ id: `${id}.0`, scorer: 'tool_correctness' }]);
    const record = (await store.run('a'.repeat(32)))!;
    expect(record.export).toMatchObject({ state: 'exported', attempts: 1 });
    expect(record.results).toHaveLength(1);
    expect((await store.summary(t - 60_000, t + 60_000)).total.count).toBe(3);
    // A cursor of the layout before (an entry id) still pages on: nothing older is left.
    expect((await store.results({}, 10, id!)).results).toEqual([]);
  });

  it.each([1, 2] as const)(
    'the redis store gives a cursor when its scan limit cuts a filtered page, so nothing is missed, results layout %i',
    async layout => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      await whenReady(redis.commands);
      // Two entries scanned per page at most, of six: a page ends where the scan stopped, with a
      // cursor, and the client reads on to the end of the stream (before, such a page ended with
      // no cursor, as if nothing were left).
      const store = createRedisResultsStore(redis.commands, prefix, retention, {
        scanLimit: 2,
        layout,
      });
      const ids = await feed(store);
      const found: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.results({ label: 'fail' }, 10, cursor);
        found.push(...page.results.map(r => `${r.traceId} ${r.scorer}`));
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor && pages < 20);
      expect(pages).toBeGreaterThan(1);
      expect(found.sort()).toEqual(
        [
          `${ids['weather-wrong']} tool_call_accuracy`,
          `${ids['weather-wrong']} tool_correctness`,
        ].sort(),
      );
    },
  );
});

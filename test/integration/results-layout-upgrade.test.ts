import { afterEach, describe, expect, it } from 'vitest';
import { whenReady } from '../../src/redis/redis-connection.js';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { sessionRecordKey } from '../../src/results/run-record-key.js';
import { scoreSession } from '../../src/score/score-session.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { parseSuite } from '../../src/suite/load-suite.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { judgedPass } from '../helpers/judged-pass.js';
import { agentTrace, type CallInput } from '../helpers/trace-builder.js';

/**
 * `results.layout` in a rolling upgrade, both ways: processes of one deployment on one prefix,
 * some writing layout 1 and some layout 2 (two releases, or two configs, side by side), and a
 * switch back from 2 to 1. Every reader of this release, whichever layout it writes, reads what
 * either wrote the same, and right: a record written in one layout and rescored, judged, failed
 * or exported by the other keeps the API's answers of a deployment that never switched.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const SUITE = `
name: travel
scorers: [tool_correctness, tool_call_accuracy]
testCases:
  - id: weather
    expectedTool: get_weather
    expectedTools: [get_weather]
`;
const SESSION_SUITE = `
name: support
scorers: [tool_trajectory]
testCases:
  - id: conv
    session: true
    expectedCalls: [get_weather, book_flight]
`;

const retention = {
  maxResults: 1000,
  maxRuns: 1000,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

/** Everything the API answers from a store, for the traces and session of the scenario. */
const from = Date.now() - 3_600_000;
const to = Date.now() + 600_000;
async function everything(store: ResultsStore, keys: string[]): Promise<unknown> {
  return {
    results: await store.results({}, 100),
    page: await store.results({ label: 'pass' }, 2),
    runs: await Promise.all(keys.map(k => store.run(k))),
    traces: await store.traces({}, 100),
    sessions: await store.traces({ sessions: true }, 100),
    summary: await store.summary(from, to),
    tools: await store.tools(from, to),
  };
}

describe('results layouts 1 and 2 side by side on one prefix (a rolling upgrade)', () => {
  it.each([
    [1, 2],
    [2, 1],
  ] as const)(
    'what a layout %i writer wrote, a layout %i writer rescores, judges, fails and exports; every reader reads it all the same',
    async (from, to) => {
      const prefix = testPrefix();
      const redis = redisFor(prefix);
      closers.push(() => redis.cleanup());
      await whenReady(redis.commands);
      await whenReady(redis.commands);
      const storeOf = (layout: 1 | 2): ResultsStore =>
        createRedisResultsStore(redis.commands, prefix, retention, { layout });
      const before = storeOf(from);
      const after = storeOf(to);
      const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
      const sessionPlan: ScoringPlan = {
        suites: [await parseSuite(SESSION_SUITE, 'support.yaml', '.')],
        rules: [],
      };
      const sinkOf = (store: ResultsStore) => [resultsStoreSink(store, { exportState: 'pending' })];
      const rescored = agentTrace(['get_weather'], { testCaseId: 'weather' });
      const judged = agentTrace(['get_weather'], { testCaseId: 'weather' });
      const failed = agentTrace(['search_web'], { testCaseId: 'weather' });
      const exported = agentTrace(['get_weather', 'search_web'], { testCaseId: 'weather' });
      const turn = (calls: CallInput[], atMs: number) => {
        const t = agentTrace(calls, { testCaseId: 'conv', atMs });
        return { traceId: t.traceId, spans: t.spans };
      };
      const t1 = turn(['get_weather'], 0);
      const t2 = turn(['book_flight'], 1000);
      const session = 'conv 1';

      // The first release (or config) writes…
      for (const t of [rescored, failed, exported])
        await scoreTrace(t.traceId, t.spans, plan, { sinks: sinkOf(before) });
      before.write(judgedPass(judged, 'deterministic'), { exportState: 'pending' });
      await scoreSession(session, [t1, t2], sessionPlan, {
        sinks: sinkOf(before),
        pass: { part: 1 },
      });
      await before.close();
      await new Promise(r => setTimeout(r, 5)); // the second's writes come later

      // …and the other one carries on with the same traces.
      const late = agentTrace(['get_weather', 'search_web'], { testCaseId: 'weather' });
      await scoreTrace(
        rescored.traceId,
        late.spans.map(s => ({ ...s, traceId: rescored.traceId })),
        plan,
        { sinks: sinkOf(after) },
      );
      after.write(judgedPass(judged, 'llm'), { exportState: 'pending' });
      await after.recordFailure(failed.traceId, 'llm', new Error('judge down'));
      await after.recordExport(exported.traceId, { state: 'exported' });
      await scoreSession(session, [t1], sessionPlan, { sinks: sinkOf(after), pass: { part: 1 } });
      const fresh = agentTrace(['get_weather'], { testCaseId: 'weather' });
      await scoreTrace(fresh.traceId, fresh.spans, plan, { sinks: sinkOf(after) });
      await after.close();

      const keys = [
        rescored.traceId,
        judged.traceId,
        failed.traceId,
        exported.traceId,
        fresh.traceId,
        sessionRecordKey(session),
      ];
      // Every reader: both writers, and new processes of either layout.
      const seen = await everything(before, keys);
      for (const reader of [after, storeOf(1), storeOf(2)])
        expect(await everything(reader, keys)).toEqual(seen);

      const [rescoredRun, judgedRun, failedRun, exportedRun, freshRun, sessionRun] = (
        seen as { runs: Array<Awaited<ReturnType<ResultsStore['run']>>> }
      ).runs;
      // The rescore replaced the first pass's results, the judge pass added its own.
      expect(rescoredRun!.results.map(r => [r.scorer, r.label, r.toolSequence])).toEqual([
        ['tool_correctness', 'fail', ['get_weather', 'search_web']],
        ['tool_call_accuracy', 'pass', ['get_weather', 'search_web']],
      ]);
      expect(rescoredRun!.toolCalls.map(c => c.name)).toEqual(['get_weather', 'search_web']);
      expect(judgedRun).toMatchObject({ awaitingJudge: [], reason: null });
      expect(judgedRun!.results.map(r => [r.scorer, r.label, r.judgeCostUsd])).toEqual([
        ['tool_correctness', 'pass', null],
        ['rubric', 'fail', 0.0021],
      ]);
      // A failure keeps the results and export written before it.
      expect(failedRun).toMatchObject({ state: 'failed', export: { state: 'pending' } });
      expect(failedRun!.results).toHaveLength(2);
      expect(exportedRun!.export).toMatchObject({ state: 'exported', attempts: 1 });
      expect(exportedRun!.results).toHaveLength(2);
      expect(freshRun!.results.map(r => r.id)).toEqual([
        `${fresh.traceId}:0`,
        `${fresh.traceId}:1`,
      ]);
      expect(sessionRun!.session?.traceIds).toEqual([t1.traceId]);
      expect(sessionRun!.results.map(r => [r.scorer, r.label])).toEqual([
        ['tool_trajectory', 'fail'],
      ]);
      for (const run of [rescoredRun, judgedRun, failedRun, exportedRun, freshRun, sessionRun])
        expect(run!.resultsDropped).toBeUndefined();

      // Listed once each, the replaced passes taken back from the counters whoever wrote them:
      // 2 results a trace (the judged one: its 2 passes' 1 each) and the session's 1.
      const all = (seen as { results: Awaited<ReturnType<ResultsStore['results']>> }).results;
      expect(all.results).toHaveLength(11);
      expect(new Set(all.results.map(r => r.id)).size).toBe(11);
      const summary = (seen as { summary: Awaited<ReturnType<ResultsStore['summary']>> }).summary;
      expect(summary.total.count).toBe(11);
      expect(summary.sessions).toBe(1);
      const tools = (seen as { tools: Awaited<ReturnType<ResultsStore['tools']>> }).tools;
      // get_weather: rescored (once), judged, exported, fresh, the session's 2 turns' first
      // counted with it; search_web: rescored, failed, exported.
      expect(tools.tools.map(t => [t.tool, t.calls])).toEqual(
        ((await everything(storeOf(1), keys)) as { tools: typeof tools }).tools.tools.map(t => [
          t.tool,
          t.calls,
        ]),
      );
      expect(tools.tools.find(t => t.tool === 'search_web')?.calls).toBe(3);
    },
  );
});

describe('a layout 2 run record whose results the stream dropped', () => {
  it('says how many it no longer has; a layout 1 record keeps its own copy', async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    let clock = Date.now();
    const bounded = { ...retention, maxResults: 2 };
    const storeOf = (layout: 1 | 2): ResultsStore =>
      createRedisResultsStore(redis.commands, prefix, bounded, { layout, now: () => clock });
    const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
    const v1 = storeOf(1);
    const v2 = storeOf(2);
    const old1 = agentTrace(['get_weather'], { testCaseId: 'weather' });
    const old2 = agentTrace(['get_weather'], { testCaseId: 'weather' });
    await scoreTrace(old1.traceId, old1.spans, plan, {
      sinks: [resultsStoreSink(v1, { exportState: 'disabled' })],
    });
    await scoreTrace(old2.traceId, old2.spans, plan, {
      sinks: [resultsStoreSink(v2, { exportState: 'disabled' })],
    });
    await v1.close();
    await v2.close();
    expect((await v2.run(old2.traceId))!.results).toHaveLength(2);
    // Later traffic past maxResults: the next write trims the stream (at most once a second).
    clock += 2000;
    const next = agentTrace(['get_weather'], { testCaseId: 'weather' });
    await scoreTrace(next.traceId, next.spans, plan, {
      sinks: [resultsStoreSink(v2, { exportState: 'disabled' })],
    });
    await v2.close();
    expect((await v2.results({}, 10)).results.map(r => r.traceId)).toEqual([
      next.traceId,
      next.traceId,
    ]);

    for (const reader of [v1, v2]) {
      const dropped = await reader.run(old2.traceId);
      expect(dropped).toMatchObject({ state: 'scored', results: [], resultsDropped: 2 });
      expect(dropped!.toolCalls.map(c => c.name)).toEqual(['get_weather']);
      const kept = await reader.run(old1.traceId);
      expect(kept!.results).toHaveLength(2);
      expect(kept!.resultsDropped).toBeUndefined();
      expect((await reader.run(next.traceId))!.results).toHaveLength(2);
    }
  });
});

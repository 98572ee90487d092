import { afterEach, describe, expect, it } from 'vitest';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { UNKNOWN_TEST_CASE_REASON } from '../../src/results/not-scored-field.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { parseSuite } from '../../src/suite/load-suite.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { agentTrace } from '../helpers/trace-builder.js';

/**
 * Two Redis results stores on one prefix (two worker replicas, or a process and the one after
 * its restart) count traces not scored in the same fields: a pass one writes and the other
 * replaces is taken back where it was counted. When each process kept its own first 50 reasons
 * apart, a trace counted under "other" by one was taken back from its own reason by the other,
 * and that reason's count went negative.
 */
const SUITE = `
name: travel
scorers: [tool_correctness]
testCases:
  - id: weather
    expectedTool: get_weather
`;
const RETENTION = {
  maxResults: 1000,
  maxRuns: 1000,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('traces not scored, counted by two Redis writers on one prefix', () => {
  it('are taken back by one where the other counted them', async () => {
    const plan: ScoringPlan = { suites: [await parseSuite(SUITE, 'suite.yaml', '.')], rules: [] };
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    const stores = [0, 1].map(() => createRedisResultsStore(redis.commands, prefix, RETENTION));
    for (const store of stores) closers.push(() => close(store));
    const [one, two] = stores.map(s => resultsStoreSink(s, { exportState: 'pending' }));
    for (let i = 0; i < 60; i++) {
      const t = agentTrace(['get_weather'], { testCaseId: `unknown-${i}` });
      await scoreTrace(t.traceId, t.spans, plan, { sinks: [one!] });
    }
    // A trace whose root came late: not scored by the first writer (no test case id on it yet),
    // scored when the second scores it again with its root.
    const late = agentTrace(['get_weather'], { testCaseId: 'weather' });
    const children = late.spans.filter(s => s.parentSpanId);
    await scoreTrace(late.traceId, children, plan, { sinks: [one!] });
    await scoreTrace(late.traceId, late.spans, plan, { sinks: [two!] });
    for (const store of stores) await close(store);
    const summary = await stores[0]!.summary(Date.now() - 3_600_000, Date.now() + 60_000);
    // The late trace's count taken back from its reason (left at 0), none negative.
    for (const r of summary.notScored) expect(r.count).toBeGreaterThanOrEqual(0);
    expect(summary.notScored.filter(r => r.count > 0)).toEqual([
      { reason: UNKNOWN_TEST_CASE_REASON, count: 60 },
    ]);
  }, 30_000);
});

async function close(store: ResultsStore): Promise<void> {
  if ('close' in store && typeof store.close === 'function') await store.close();
}

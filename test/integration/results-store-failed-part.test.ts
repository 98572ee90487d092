import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryResultsStore } from '../../src/results/memory-results-store.js';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { scoreSession } from '../../src/score/score-session.js';
import { sessionRecordKey } from '../../src/results/run-record-key.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { parseSuite } from '../../src/suite/load-suite.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { agentTrace } from '../helpers/trace-builder.js';

/**
 * A session part held after its pass failed (memory driver) or kept in Redis (bullmq) may fail
 * more than once, and be scored at last: the store's counters count one failed record once and a
 * session scored once. Before, each failure counted (the pass that replaced the record took back
 * one), and a part scored, then failed, then scored again counted as two sessions.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const retention = {
  maxResults: 1000,
  maxRuns: 1000,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

const SESSION_SUITE = `
name: support
scorers: [tool_trajectory]
testCases:
  - id: conv
    session: true
    turns:
      - expectedCalls: [get_weather]
`;

const stores: Record<string, () => Promise<ResultsStore>> = {
  memory: () => Promise.resolve(createMemoryResultsStore(retention)),
  redis: async () => {
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    return createRedisResultsStore(redis.commands, prefix, retention);
  },
};

describe.each(Object.keys(stores))(
  'the %s results store, a session part that fails again',
  name => {
    it('counts one failed record once, and the part as one session once scored', async () => {
      const store = await stores[name]!();
      const plan: ScoringPlan = {
        suites: [await parseSuite(SESSION_SUITE, 'support.yaml', '.')],
        rules: [],
      };
      const sinks = [resultsStoreSink(store, { exportState: 'disabled' })];
      const t = agentTrace(['get_weather'], { testCaseId: 'conv' });
      const turn = { traceId: t.traceId, spans: t.spans };
      const key = sessionRecordKey('conv-1');
      const part = {
        id: 'conv-1',
        part: 1,
        traceIds: [t.traceId],
        cut: null,
        cutReason: null,
        continues: null,
      };
      const window = () => store.summary(Date.now() - 3_600_000, Date.now() + 60_000);

      // Scored, then failed twice (a held part's later passes), then scored at last.
      await scoreSession('conv-1', [turn], plan, { sinks, pass: { part: 1 } });
      expect((await window()).sessions).toBe(1);
      await store.recordFailure(key, 'deterministic', new Error('store down'), part);
      await store.recordFailure(key, 'deterministic', new Error('store down'), part);
      const failedTwice = await window();
      expect(failedTwice.failedTraces).toBe(1);
      expect(failedTwice.sessions).toBe(0);
      await scoreSession('conv-1', [turn], plan, { sinks, pass: { part: 1 } });
      const scored = await window();
      expect(scored.failedTraces).toBe(0);
      expect(scored.sessions).toBe(1);
      expect((await store.run(key))?.state).toBe('scored');
    });
  },
);

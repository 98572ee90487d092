import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryResultsStore } from '../../src/results/memory-results-store.js';
import { createRedisResultsStore } from '../../src/redis/redis-results-store.js';
import { resultsStoreSink, type ResultsStore } from '../../src/results/results-store.js';
import { MAX_CONTENT_CHARS } from '../../src/results/stored-result.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { redisFor, testPrefix } from '../helpers/redis.js';
import { agentTrace } from '../helpers/trace-builder.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSuite } from '../../src/suite/load-suite.js';
import { toolHealthPlan } from '../helpers/tool-health-plan.js';

/**
 * A call's arguments as every store gives them back: the JSON of the value the trace's text
 * parsed to, however the text was spaced, escaped or ordered, and cut at MAX_CONTENT_CHARS by
 * that JSON's length, not the text's. The memory store copies the text it parsed (when it shows
 * the JSON fits); the Redis stores write the value's JSON: the same answers.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const retention = {
  maxResults: 100,
  maxRuns: 100,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

const stores: Record<string, () => Promise<ResultsStore>> = {
  memory: () => Promise.resolve(createMemoryResultsStore(retention)),
  ...Object.fromEntries(
    ([1, 2] as const).map(layout => [
      `redis, layout ${layout}`,
      async () => {
        const prefix = testPrefix();
        const redis = redisFor(prefix);
        closers.push(() => redis.cleanup());
        await whenReady(redis.commands);
        return createRedisResultsStore(redis.commands, prefix, retention, { layout });
      },
    ]),
  ),
};

const plan = toolHealthPlan();

/** What a store gives back: the value's JSON, cut as a record cuts it. */
function expected(text: string): string {
  const json = JSON.stringify(JSON.parse(text));
  return json.length > MAX_CONTENT_CHARS ? `${json.slice(0, MAX_CONTENT_CHARS)}…` : json;
}

const TEXTS: Record<string, string> = {
  spaced: '{ "city" : "Lisbon",\n  "date": "2026-12-01" }',
  'repeated keys and escapes': '{"a":1,"a":2,"s":"\\u0041\\/\\"","t":"\\ud800"}',
  'index keys after others': '{"b":1,"10":2,"2":3}',
  'not ASCII': '{"city":"Zürich"}',
  // 1,996 characters of text whose JSON is 8,778: exponents written out in full.
  'numbers the JSON writes longer': `[${Array.from({ length: 399 }, () => '1e20').join(',')}]`,
  // 1,999 characters of text whose JSON is 2,110: each rounds up to a digit more.
  'integers the JSON writes longer': `[${Array.from({ length: 111 }, () => '99999999999999999').join(',')}]`,
  // 2,007 characters of text whose JSON is 7.
  'spacing past the bound': `{"a":1${' '.repeat(MAX_CONTENT_CHARS)}}`,
  'long, within the bound': `{"k":"${'x'.repeat(MAX_CONTENT_CHARS - 8)}"}`,
  'long, past the bound': `{"k":"${'x'.repeat(MAX_CONTENT_CHARS)}"}`,
};

describe.each(Object.keys(stores))('tool-call arguments in the %s results store', name => {
  it('are the JSON of the value the text parsed to, cut by that JSON’s length', async () => {
    const store = await stores[name]!();
    const trace = agentTrace(
      Object.values(TEXTS).map(argsText => ({ name: 'get_weather', argsText, result: {} })),
    );
    await scoreTrace(trace.traceId, trace.spans, plan, {
      sinks: [resultsStoreSink(store, { exportState: 'pending' })],
    });
    const run = await store.run(trace.traceId);
    const got = Object.fromEntries(
      Object.keys(TEXTS).map((label, i) => [label, run!.toolCalls[i]!.arguments]),
    );
    expect(got).toEqual(
      Object.fromEntries(Object.entries(TEXTS).map(([label, text]) => [label, expected(text)])),
    );
    // The cases say what they claim.
    expect(TEXTS['numbers the JSON writes longer']!.length).toBeLessThan(MAX_CONTENT_CHARS);
    expect(got['numbers the JSON writes longer']).toMatch(/^\[100000000000000000000,.*…$/);
    expect(got['long, past the bound']!.length).toBe(MAX_CONTENT_CHARS + 1);
    expect(TEXTS['integers the JSON writes longer']!.length).toBeLessThan(MAX_CONTENT_CHARS);
    expect(got['integers the JSON writes longer']).toMatch(/^\[100000000000000000,.*…$/);
  });
});

/**
 * Two scorers that redact in place (one made by defineScorer, one of the scorer shape only), in a
 * suite loaded once for every store.
 */
let redactingPlan: Promise<ScoringPlan> | undefined;
const redacting = (): Promise<ScoringPlan> =>
  (redactingPlan ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-content-'));
    writeFileSync(
      join(dir, 'redact.ts'),
      `import { defineScorer } from 'spanscore';
export default defineScorer({
  name: 'redacts_password',
  score: trace => {
    for (const call of trace.toolSequence) (call.arguments as { password: string }).password = '***';
    return 1;
  },
});
`,
    );
    writeFileSync(
      join(dir, 'redact-shape.mjs'),
      `export default {
  name: 'redacts_token',
  parseOptions: o => o,
  score({ trace }) {
    for (const call of trace.toolSequence) call.arguments.token = '***';
    return { status: 'scored', score: 1, label: 'pass', reason: 'redacted', details: {} };
  },
};
`,
    );
    writeFileSync(
      join(dir, 'suite.yaml'),
      'customScorers: [./redact.ts, ./redact-shape.mjs]\nscorers: [redacts_password, redacts_token]\ntestCases: [{ id: login }]\n',
    );
    return { suites: [await loadSuite(join(dir, 'suite.yaml'))], rules: [] };
  })());

describe.each(Object.keys(stores))(
  'tool-call arguments custom scorers changed, in the %s store',
  name => {
    beforeAll(() => redacting(), 120_000);
    it('are stored as changed, not as the text they were parsed from', async () => {
      const store = await stores[name]!();
      const trace = agentTrace(
        [{ name: 'login', argsText: '{"user":"ana","password":"hunter2","token":"t0k"}' }],
        { testCaseId: 'login' },
      );
      await scoreTrace(trace.traceId, trace.spans, await redacting(), {
        sinks: [resultsStoreSink(store, { exportState: 'pending' })],
      });
      const run = await store.run(trace.traceId);
      expect(run!.results.map(r => [r.scorer, r.status])).toEqual([
        ['redacts_password', 'scored'],
        ['redacts_token', 'scored'],
      ]);
      expect(run!.toolCalls[0]!.arguments).toBe('{"user":"ana","password":"***","token":"***"}');
    });
  },
);

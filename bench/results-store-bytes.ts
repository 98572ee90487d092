/**
 * Redis bytes per stored result and per run record (`npm run bench:results`, or
 * `RESULTS_LAYOUT=2 npm run bench:results` for `results.layout: 2`): scores 2,000 traces
 * of the demo suite (2 scorers each) into the Redis results store under a private prefix, reads
 * MEMORY USAGE of every key it wrote, prints the figures docs/results-and-dashboards.md and docs/operations.md quote, and deletes the keys.
 */
import { Redis } from 'ioredis';
import { createRedisResultsStore } from '../src/redis/redis-results-store.js';
import { resultsStoreSink } from '../src/results/results-store.js';
import { scoreTrace } from '../src/score/score-trace.js';
import { parseSuite } from '../src/suite/load-suite.js';
import { readFileSync } from 'node:fs';
import { agentTrace } from '../test/helpers/trace-builder.js';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = 'spanscore-bytes-' + Date.now();
const store = createRedisResultsStore(
  redis,
  prefix,
  {
    maxServices: 20,
    maxToolsPerService: 30,
    maxResults: 100000,
    maxRuns: 1,
    retentionMs: 3600_000,
    storeContent: true,
  },
  { layout: process.env.RESULTS_LAYOUT === '2' ? 2 : 1 },
);
const suite = await parseSuite(
  readFileSync(new URL('../config/suites/demo.yaml', import.meta.url), 'utf8'),
  'demo.yaml',
  '.',
);
const plan = { suites: [suite], rules: [] };
const N = 2000;
for (let i = 0; i < N; i++) {
  const t = agentTrace(i % 3 ? ['search_flights', 'book_flight'] : ['search_web'], {
    testCaseId: i % 2 ? 'book-trip' : 'wrong-tool',
  });
  await scoreTrace(t.traceId, t.spans, plan, {
    sinks: [resultsStoreSink(store, { exportState: 'pending' })],
  });
}
await store.close();
const streamBytes = Number(
  await redis.call('MEMORY', 'USAGE', `${prefix}:results:{r}:stream`, 'SAMPLES', '0'),
);
let runBytes = 0;
let runs = 0;
let cursor = '0';
do {
  const [c, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:run:*`, 'COUNT', 1000);
  cursor = c;
  for (const k of keys) {
    runBytes += Number(await redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
    runs++;
  }
} while (cursor !== '0');
const minuteKeys = await redis.keys(`${prefix}:results:{r}:m:*`);
let mBytes = 0;
for (const k of minuteKeys)
  mBytes += Number(await redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0'));
console.log({
  results: N * 2,
  streamBytesPerResult: streamBytes / (N * 2),
  runKeys: runs,
  runBytesPerTrace: runBytes / N,
  minuteHashes: minuteKeys.length,
  minuteBytes: mBytes,
});
const keys = await redis.keys(`${prefix}:*`);
for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
await redis.quit();

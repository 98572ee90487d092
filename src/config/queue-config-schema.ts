import { z } from 'zod';

/**
 * The `queue` section: which driver buffers spans and jobs, and how it reaches Redis (one URL or
 * Cluster nodes, auth, TLS, key prefix, shards).
 */
export const queueConfigSchema = z
  .object({
    driver: z
      .enum(['memory', 'bullmq'])
      .optional()
      .describe(
        'The queue between receiver and scorers. Default: `bullmq` when a Redis URL or Cluster nodes are set, else the embedded `memory` driver (one process, nothing kept across restarts).',
      ),
    memoryHeapMb: z.coerce
      .number()
      .int()
      .min(0)
      .default(192)
      .describe(
        "Memory driver: the V8 heap the embedded service runs in, in MB, so that it stays small under any load (`serve` peaked at about 230 MB RSS at full load on the benchmark, with the default bounds). `serve` runs the service in a worker thread with this heap (`resourceLimits`); a `--max-old-space-size` of yours (`NODE_OPTIONS`) is kept instead. 0: Node's own limit. Raise it with `assembly.maxBufferedSpans` or `results.maxResults`.",
      ),
    memoryThreads: z.coerce
      .number()
      .int()
      .min(1)
      .max(2)
      .default(1)
      .describe(
        "Memory driver: the threads `serve` runs on. 1: one thread, whose V8 heap is `memoryHeapMb`. 2: one thread receives and decodes OTLP requests and serves the API, the results page and `/metrics`; another (whose heap is `memoryHeapMb`) assembles, scores, stores and exports, the span batches passed between them as bytes. On the benchmark's two-core host, with its load generator on the same cores, 2 scored no more spans a second than 1, for 5-25% more CPU a span and about 70 MB more RSS (docs/performance.md); it keeps the API apart from scoring.",
      ),
    redisUrl: z
      .string()
      .url()
      .optional()
      .describe('One Redis (`redis://`, or `rediss://` for TLS). Not with `redisClusterNodes`.'),
    redisClusterNodes: z
      .array(
        z
          .string()
          .regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')
          .refine(node => Number(node.split(':').pop()) <= 65535, 'port above 65535'),
      )
      .min(1)
      .optional()
      .describe(
        'Redis Cluster seed nodes (`host:port`): every connection becomes an ioredis `Cluster` and every key a hash-tagged one. Not with `redisUrl`.',
      ),
    redisUsername: z
      .string()
      .min(1)
      .optional()
      .describe("ACL user (with `redisUrl`, overrides the URL's)."),
    redisPassword: z
      .string()
      .min(1)
      .optional()
      .describe("ACL password (with `redisUrl`, overrides the URL's)."),
    redisTls: z
      .boolean()
      .default(false)
      .describe('TLS to the Redis Cluster nodes (`rediss://` does it for `redisUrl`).'),
    redisTlsCaFile: z.string().min(1).optional().describe('A CA file (PEM) for Redis TLS.'),
    prefix: z
      .string()
      .min(1)
      .regex(/^[^{}]+$/, 'no { or }: spanscore adds the hash tags itself')
      .default('spanscore')
      .describe(
        'Prefix of every Redis key spanscore writes. No `{` or `}`: spanscore adds the hash tags.',
      ),
    shards: z.coerce
      .number()
      .int()
      .min(1)
      .max(64)
      .default(1)
      .describe(
        'Trace queues: each trace goes to one, by its id; workers take from all. On a cluster each shard sits on its own slot, so N shards spread the queue over up to N masters.',
      ),
  })
  .strict()
  .prefault({});

import { z } from 'zod';
import { ruleSchema } from './rule-schema.js';

const priceSchema = z
  .object({
    inputPerMillionTokens: z.number().nonnegative(),
    outputPerMillionTokens: z.number().nonnegative(),
  })
  .strict();

/**
 * The LLM judge behind `tool_call_appropriateness` and `rubric`. The endpoint and key default to
 * `OPENAI_BASE_URL` and `OPENAI_API_KEY` (read by the `openai` client) unless set here.
 */
export const judgeConfigSchema = z
  .object({
    /** The judge model; LLM scorers exist only when it is set. */
    model: z.string().min(1).optional(),
    /** Any OpenAI-compatible endpoint; default `OPENAI_BASE_URL`, else OpenAI. */
    baseUrl: z.string().url().optional(),
    /** Default `OPENAI_API_KEY`. */
    apiKey: z.string().min(1).optional(),
    /** Per call. */
    timeoutMs: z.coerce.number().int().positive().default(60_000),
    /** Retries by the `openai` client (offline and memory driver; the BullMQ queue retries itself). */
    maxRetries: z.coerce.number().int().min(0).default(3),
    /** Judge calls at once, per process. */
    concurrency: z.coerce.number().int().positive().default(4),
    /** At most `max` calls started per `durationMs` (per process; across workers with BullMQ). */
    rateLimit: z
      .object({
        max: z.coerce.number().int().positive().default(10),
        durationMs: z.coerce.number().int().positive().default(1000),
      })
      .strict()
      .default({ max: 10, durationMs: 1000 }),
    /** BullMQ judge jobs: tries and first backoff (exponential) for 5xx, timeouts, export failures. */
    attempts: z.coerce.number().int().positive().default(5),
    backoffMs: z.coerce.number().int().positive().default(2000),
    /** How long the Redis judge cache keeps an answer (BullMQ driver). */
    cacheTtlSeconds: z.coerce
      .number()
      .int()
      .positive()
      .default(7 * 24 * 3600),
    /** US dollars per million tokens, by model name: results then carry a cost estimate. */
    prices: z.record(z.string().min(1), priceSchema).default({}),
    /** Dollars per UTC day; once spent, LLM scorers are skipped with the reason. Needs `prices`. */
    dailyBudgetUsd: z.coerce.number().positive().optional(),
  })
  .strict()
  .default({
    timeoutMs: 60_000,
    maxRetries: 3,
    concurrency: 4,
    rateLimit: { max: 10, durationMs: 1000 },
    attempts: 5,
    backoffMs: 2000,
    cacheTtlSeconds: 7 * 24 * 3600,
    prices: {},
  });

/** The validated `judge` section. */
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;

/**
 * The service configuration: the one place its defaults are written. A config file (YAML or JSON)
 * and `SPANSCORE_*` variables fill it; `loadConfig` validates it once, at start-up.
 */
export const configSchema = z
  .object({
    queue: z
      .object({
        /** `bullmq` when a Redis URL is set, else the embedded `memory` driver. */
        driver: z.enum(['memory', 'bullmq']).optional(),
        redisUrl: z.string().url().optional(),
        /**
         * Redis Cluster seed nodes (`host:port`): every connection becomes an ioredis `Cluster`
         * and every key a hash-tagged one. Mutually exclusive with `redisUrl`.
         */
        redisClusterNodes: z
          .array(
            z
              .string()
              .regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')
              .refine(node => Number(node.split(':').pop()) <= 65535, 'port above 65535'),
          )
          .min(1)
          .optional(),
        /** ACL user and password (cluster nodes; with `redisUrl` they override the URL's). */
        redisUsername: z.string().min(1).optional(),
        redisPassword: z.string().min(1).optional(),
        /** TLS to Redis (`rediss://` does it for `redisUrl`), with an optional CA file (PEM). */
        redisTls: z.boolean().default(false),
        redisTlsCaFile: z.string().min(1).optional(),
        /**
         * Key prefix for everything spanscore keeps in Redis. No braces: spanscore adds the hash
         * tags, and Redis hashes a key by its first `{…}`.
         */
        prefix: z
          .string()
          .min(1)
          .regex(/^[^{}]+$/, 'no { or }: spanscore adds the hash tags itself')
          .default('spanscore'),
        /**
         * Trace queues: each trace goes to one, by its id; workers take from all. On a cluster each
         * shard's keys sit on their own slot, so N shards spread the queue over up to N masters.
         */
        shards: z.coerce.number().int().min(1).max(64).default(1),
      })
      .strict()
      .default({ prefix: 'spanscore', shards: 1, redisTls: false }),
    receiver: z
      .object({
        port: z.coerce.number().int().min(0).max(65535).default(4318),
        host: z.string().default('0.0.0.0'),
        /** Largest body, compressed or not (OTLP recommends 64 MiB). */
        maxBodyBytes: z.coerce
          .number()
          .int()
          .positive()
          .default(64 * 1024 * 1024),
        /**
         * Ingest tokens: when any is set, `POST /v1/traces` needs one of them as its bearer token
         * (401 without, 403 with a read-only token). A list, so a token rotates without downtime:
         * add the new one, move the agents over, remove the old one.
         */
        authTokens: z.array(z.string().min(1)).default([]),
        /**
         * The single token of earlier releases: an ingest token and, when `results.readTokens` is
         * empty, the read token too (start-up says so).
         */
        authToken: z.string().min(1).optional(),
      })
      .strict()
      .default({ port: 4318, host: '0.0.0.0', maxBodyBytes: 64 * 1024 * 1024, authTokens: [] }),
    assembly: z
      .object({
        settleMs: z.coerce.number().int().min(0).default(2000),
        maxWaitMs: z.coerce.number().int().positive().default(30_000),
        rescoreLateSpans: z.boolean().default(false),
        /** Memory driver: spans held before the receiver answers 429. */
        maxBufferedSpans: z.coerce.number().int().positive().default(200_000),
        /** BullMQ driver: traces waiting before the receiver answers 429. */
        maxQueuedTraces: z.coerce.number().int().positive().default(100_000),
      })
      .strict()
      .default({
        settleMs: 2000,
        maxWaitMs: 30_000,
        rescoreLateSpans: false,
        maxBufferedSpans: 200_000,
        maxQueuedTraces: 100_000,
      }),
    worker: z
      .object({
        /** Traces scored at once per process (bullmq: one job of a request's traces per 16). */
        concurrency: z.coerce.number().int().positive().default(4),
        attempts: z.coerce.number().int().positive().default(5),
        backoffMs: z.coerce.number().int().positive().default(1000),
        /** BullMQ: how long a job's lock lasts without renewal (a killed worker's job waits this long). */
        lockDurationMs: z.coerce.number().int().positive().default(30_000),
        /** BullMQ: how often workers look for jobs whose worker died, to run them again. */
        stalledIntervalMs: z.coerce.number().int().positive().default(30_000),
        /** `spanscore worker` serves `/metrics` and `/healthz` on this port (serve uses its own). */
        metricsPort: z.coerce.number().int().min(0).max(65535).optional(),
      })
      .strict()
      .default({
        concurrency: 4,
        attempts: 5,
        backoffMs: 1000,
        lockDurationMs: 30_000,
        stalledIntervalMs: 30_000,
      }),
    judge: judgeConfigSchema,
    /** Suite files whose test cases are scored; paths relative to the config file. */
    suites: z.array(z.string().min(1)).default([]),
    /** Production rules: score matching traces that belong to no test case. */
    rules: z.array(ruleSchema).default([]),
    export: z
      .object({
        /**
         * Write evaluation spans into the tracing backend. Off: results go to the results store,
         * metrics and files only. Also off, with a start-up line, when the endpoint would be this
         * service's own receiver (nothing set and `serve` on port 4318).
         */
        enabled: z.boolean().default(true),
        /** OTLP/HTTP traces endpoint; default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _ENDPOINT. */
        url: z.string().url().optional(),
        headers: z.record(z.string(), z.string()).optional(),
        /** OTLP/HTTP encoding; default: OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL, else http/protobuf. */
        protocol: z.enum(['http/protobuf', 'http/json']).optional(),
        /** Evaluation spans of concurrent traces go out in one request of up to this many. */
        batchMaxSpans: z.coerce.number().int().positive().default(1024),
        /** How long a batch may wait for more spans. */
        batchDelayMs: z.coerce.number().int().min(0).default(10),
        /** Also append every result to this JSON Lines file. */
        resultsFile: z.string().min(1).optional(),
        /** Also log a line per result. */
        logResults: z.boolean().default(true),
        /** Failed exports of evaluation spans are retried until the trace's own job is this old. */
        retryMaxAgeMs: z.coerce.number().int().positive().default(3_600_000),
        /** The exponential backoff between export retries stops growing here. */
        retryMaxBackoffMs: z.coerce.number().int().positive().default(60_000),
        /** Also emit each result as an OTLP log record (`gen_ai.evaluation.result`). */
        logs: z.boolean().default(false),
        /** OTLP/HTTP logs endpoint; default: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT / _ENDPOINT. */
        logsUrl: z.string().url().optional(),
      })
      .strict()
      .default({
        enabled: true,
        logResults: true,
        logs: false,
        batchMaxSpans: 1024,
        batchDelayMs: 10,
        retryMaxAgeMs: 3_600_000,
        retryMaxBackoffMs: 60_000,
      }),
    /** Prometheus metrics. */
    metrics: z
      .object({
        /** Evaluated services labelled by name; past this many distinct ones, `other`. */
        maxServices: z.coerce.number().int().positive().default(20),
      })
      .strict()
      .default({ maxServices: 20 }),
    /** The results store behind `/api/v1` and `/ui/`. */
    results: z
      .object({
        /** Most recent results kept (memory: a ring; bullmq: a capped Redis stream). */
        maxResults: z.coerce.number().int().positive().default(50_000),
        /** Run records kept by the memory driver (Redis expires them by `retentionHours`). */
        maxRuns: z.coerce.number().int().positive().default(20_000),
        /** Results, run records and per-minute summaries older than this are dropped. */
        retentionHours: z.coerce.number().positive().default(24),
        /** Link from the results page to a trace UI; `{traceId}` is replaced, e.g. Jaeger's `http://localhost:16686/trace/{traceId}`. */
        traceUrlTemplate: z
          .string()
          .refine(t => t.includes('{traceId}'), 'must contain {traceId}')
          .optional(),
        /**
         * Read tokens: when any is set, `/api/v1` needs one of them as its bearer token (401
         * without, 403 with an ingest-only token). A list, so a token rotates without downtime.
         */
        readTokens: z.array(z.string().min(1)).default([]),
        /**
         * Serve `/ui/` and `/api/v1` to any client even with no read token set. Without it, a
         * service listening on a non-loopback address and no read token answers results to
         * loopback clients only (others get 403); ingest is not affected.
         */
        public: z.boolean().default(false),
        /** Origins allowed to read `/api/v1` from a browser (CORS); none by default. */
        corsOrigins: z.array(z.string().url()).default([]),
        /**
         * Keep tool-call arguments and results in run records. Off: they are scored all the same
         * but never stored; run records keep tool names only and say so.
         */
        storeContent: z.boolean().default(true),
      })
      .strict()
      .default({
        maxResults: 50_000,
        maxRuns: 20_000,
        retentionHours: 24,
        readTokens: [],
        public: false,
        corsOrigins: [],
        storeContent: true,
      }),
    /** How long shutdown may take before the process exits anyway. */
    shutdownDeadlineMs: z.coerce.number().int().positive().default(10_000),
  })
  .strict();

/** The validated configuration. */
export type Config = z.infer<typeof configSchema>;

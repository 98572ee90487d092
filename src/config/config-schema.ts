import { z } from 'zod';
import { DEFAULT_DECODE_LIMITS, DEFAULT_MAX_BODY_BYTES } from '../ingest/decode-limits.js';
import { JUDGE_DEFAULTS } from '../judge/judge-defaults.js';
import { DEFAULT_MIN_REPEATS } from '../normalize/find-repeated-calls.js';
import { ruleSchema } from './rule-schema.js';

// Each field's meaning is its `.describe()` text: `npm run docs:config` writes
// docs/configuration.md from it, and the JSON Schema in schema/ carries it to editors. Sections
// default through `.prefault({})`, so every default is written once, on its field.

const priceSchema = z
  .object({
    inputPerMillionTokens: z
      .number()
      .nonnegative()
      .describe('US dollars per million input tokens.'),
    outputPerMillionTokens: z
      .number()
      .nonnegative()
      .describe('US dollars per million output tokens.'),
  })
  .strict();

/**
 * The LLM judge behind `tool_call_appropriateness` and `rubric`. The endpoint and key default to
 * `OPENAI_BASE_URL` and `OPENAI_API_KEY` (read by the `openai` client) unless set here.
 */
export const judgeConfigSchema = z
  .object({
    model: z
      .string()
      .min(1)
      .optional()
      .describe('The judge model. LLM scorers exist only when it is set.'),
    baseUrl: z
      .string()
      .url()
      .optional()
      .describe(
        'Any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM). Default: `OPENAI_BASE_URL`, else OpenAI.',
      ),
    apiKey: z.string().min(1).optional().describe('The API key. Default: `OPENAI_API_KEY`.'),
    timeoutMs: z.coerce
      .number()
      .int()
      .positive()
      .default(JUDGE_DEFAULTS.timeoutMs)
      .describe('Per judge call.'),
    maxRetries: z.coerce
      .number()
      .int()
      .min(0)
      .default(JUDGE_DEFAULTS.maxRetries)
      .describe(
        'Retries of a failed judge call by the `openai` client, in `spanscore score`. The service retries judge calls in its judge pass instead (`judge.attempts`, on either driver), so the client does not.',
      ),
    concurrency: z.coerce
      .number()
      .int()
      .positive()
      .default(4)
      .describe('Judge calls at once, per process.'),
    rateLimit: z
      .object({
        max: z.coerce
          .number()
          .int()
          .positive()
          .default(10)
          .describe(
            'At most this many judge calls started per `durationMs` (per process; across workers with BullMQ).',
          ),
        durationMs: z.coerce
          .number()
          .int()
          .positive()
          .default(1000)
          .describe('The interval of `rateLimit.max`.'),
      })
      .strict()
      .prefault({}),
    attempts: z.coerce
      .number()
      .int()
      .positive()
      .default(5)
      .describe('BullMQ judge jobs: tries for a 5xx, a timeout or a failed export.'),
    backoffMs: z.coerce
      .number()
      .int()
      .positive()
      .default(2000)
      .describe('BullMQ judge jobs: the first backoff between tries (exponential).'),
    cacheTtlSeconds: z.coerce
      .number()
      .int()
      .positive()
      .default(7 * 24 * 3600)
      .describe('How long the Redis judge cache keeps an answer (BullMQ driver).'),
    prices: z
      .record(z.string().min(1), priceSchema)
      .default({})
      .describe(
        'US dollars per million tokens, by model name (`{ model: { inputPerMillionTokens, outputPerMillionTokens } }`): results then carry a cost estimate.',
      ),
    dailyBudgetUsd: z.coerce
      .number()
      .positive()
      .optional()
      .describe(
        'US dollars per UTC day; once spent, LLM scorers are skipped with the reason. Needs a price for the judge model.',
      ),
  })
  .strict()
  .prefault({});

/** The validated `judge` section. */
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;

const port = () => z.coerce.number().int().min(0).max(65535);
const positiveInt = () => z.coerce.number().int().positive();

/**
 * The service configuration: the one place its defaults and meanings are written. A config file
 * (YAML or JSON) and `SPANSCORE_*` variables fill it; `loadConfig` validates it once, at start-up.
 */
export const configSchema = z
  .object({
    $schema: z
      .string()
      .optional()
      .describe('The JSON Schema this file follows, for editors; ignored by spanscore.'),
    queue: z
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
            "Memory driver: the V8 heap `serve` runs with, in MB, so that the embedded service stays small under any load (`serve` and the service it starts peaked at 262 MB RSS together at full load on the benchmark, with the default bounds). `serve` starts itself again with `--max-old-space-size` when Node's own limit is larger; a `--max-old-space-size` of yours (`NODE_OPTIONS`) is kept as it is. 0: Node's own limit. Raise it with `assembly.maxBufferedSpans` or `results.maxResults`.",
          ),
        redisUrl: z
          .string()
          .url()
          .optional()
          .describe(
            'One Redis (`redis://`, or `rediss://` for TLS). Not with `redisClusterNodes`.',
          ),
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
      .prefault({}),
    receiver: z
      .object({
        port: port()
          .default(4318)
          .describe('The OTLP/HTTP port `serve` listens on (0: any free port).'),
        host: z
          .string()
          .default('0.0.0.0')
          .describe(
            'The address `serve` listens on. On a non-loopback address with no read token, results answer loopback clients only (see `results.public`).',
          ),
        maxBodyBytes: positiveInt()
          .default(DEFAULT_MAX_BODY_BYTES)
          .describe(
            'Largest request body, compressed or not (413 above it; OTLP recommends 64 MiB).',
          ),
        maxSpansPerRequest: positiveInt()
          .default(DEFAULT_DECODE_LIMITS.maxSpans)
          .describe(
            'Spans in one request, valid or not (413 above it, counted while decoding, so a small gzip body that unpacks to millions of empty spans is refused early). Also per request read from a file by `score`, `inspect` and `suite record`.',
          ),
        maxItemsPerRequest: positiveInt()
          .default(DEFAULT_DECODE_LIMITS.maxItems)
          .describe(
            'Nested items in one request: resources, scopes, spans, events, attributes and values inside list attributes (protobuf), objects and arrays (JSON, counted before parsing). 413 above it.',
          ),
        authTokens: z
          .array(z.string().min(1))
          .default([])
          .describe(
            'Ingest tokens: when any is set, `POST /v1/traces` (and `/v1/logs`, `/v1/metrics`) needs one of them as its bearer token (401 without, 403 with a read-only token). A list, so a token rotates without downtime: add the new one, move the agents over, remove the old one.',
          ),
        authToken: z
          .string()
          .min(1)
          .optional()
          .describe(
            'The single token of earlier releases: an ingest token and, when `results.readTokens` is empty, the read token too (start-up says so).',
          ),
      })
      .strict()
      .prefault({}),
    assembly: z
      .object({
        settleMs: z.coerce
          .number()
          .int()
          .min(0)
          .default(2000)
          .describe('A trace is scored once its root span ended and no span came for this long.'),
        maxWaitMs: positiveInt()
          .default(30_000)
          .describe('A trace is scored this long after its first span, whatever arrived by then.'),
        logsWaitMs: z.coerce
          .number()
          .int()
          .min(0)
          .default(5000)
          .describe(
            "A trace whose model spans come from an instrumentation that writes the calls as OTLP log records (OpenTelemetry's and Elastic's OpenAI instrumentations) and none of whose log records has arrived waits this much longer than `settleMs`, within `maxWaitMs`.",
          ),
        rescoreLateSpans: z
          .boolean()
          .default(false)
          .describe(
            'Score a trace again when spans arrive after it was scored (else they are counted and dropped).',
          ),
        maxBufferedSpans: positiveInt()
          .default(25_000)
          .describe(
            'Memory driver: spans held (buffered or being scored; a kept GenAI log record counts as a span) before the receiver answers 429.',
          ),
        maxSpansPerTrace: positiveInt()
          .default(10_000)
          .describe(
            "Spans kept of one trace: past it a trace's further spans are refused (reported in the request's `partialSuccess`), the trace is scored with the spans it has, and its run record says it was truncated. One giant trace cannot fill the buffer for everyone.",
          ),
        maxServiceShare: z.coerce
          .number()
          .gt(0)
          .max(1)
          .default(0.5)
          .describe(
            "Memory driver: the share of `maxBufferedSpans` one service (`service.name`) may hold while others send; past it that service's requests get 429 and the others' still 200. 1: no per-service limit.",
          ),
        unscoredTtlMs: positiveInt()
          .default(24 * 3_600_000)
          .describe(
            "BullMQ driver: how long a trace's spans stay in Redis while no worker has scored it. Far longer than any outage the receiver accepts traffic through (see `admission`); a trace still not scored then ends `expired`, with the reason, in its run record and `spanscore_traces_expired_total`.",
          ),
        maxQueuedTraces: positiveInt()
          .default(100_000)
          .describe(
            'BullMQ driver: traces waiting (or delayed, or taken by a worker and not yet scored and exported) before the receiver answers 429.',
          ),
      })
      .strict()
      .prefault({}),
    admission: z
      .object({
        maxBacklogAgeMs: positiveInt()
          .default(900_000)
          .describe(
            'BullMQ driver: the receiver answers 503 with Retry-After while the oldest unscored trace has waited longer than this (workers down or too few), instead of accepting traces it might not score. 15 minutes holds a 10-minute worker outage.',
          ),
        workerAbsenceMs: positiveInt()
          .default(900_000)
          .describe(
            'BullMQ driver: the receiver answers 503 with Retry-After once no worker has been seen (each writes a heartbeat every 5 s) for this long, counted from its own start when none has been.',
          ),
        maxRedisMemoryRatio: z.coerce
          .number()
          .gt(0)
          .max(1)
          .default(0.9)
          .describe(
            "BullMQ driver: the receiver answers 503 with Retry-After while Redis's `used_memory` is at least this share of its `maxmemory` (the fullest master of a cluster), before Redis itself refuses writes.",
          ),
      })
      .strict()
      .prefault({})
      .describe(
        'What the receiver accepts: it refuses (503 + Retry-After, so OTLP exporters retry) what the backlog could not keep. Also `assembly.maxQueuedTraces` (429).',
      ),
    worker: z
      .object({
        concurrency: positiveInt()
          .default(4)
          .describe(
            "Traces scored at once per process; the export of their evaluation spans waits outside this limit (BullMQ: taken in jobs of a request's traces, one job per 16, and up to 16 jobs more per queue shard held while their exports run).",
          ),
        attempts: positiveInt()
          .default(5)
          .describe(
            'Tries for a retryable failure other than an export (a judge 5xx, Redis). Exports retry by age: `export.retryMaxAgeMs`.',
          ),
        backoffMs: positiveInt()
          .default(1000)
          .describe('The first backoff between tries (exponential).'),
        lockDurationMs: positiveInt()
          .default(30_000)
          .describe(
            "BullMQ: how long a job's lock lasts without renewal (a killed worker's job waits this long, plus `stalledIntervalMs`).",
          ),
        stalledIntervalMs: positiveInt()
          .default(30_000)
          .describe(
            'BullMQ: how often workers look for jobs whose worker died, to run them again.',
          ),
        metricsPort: port()
          .optional()
          .describe(
            '`spanscore worker` serves `/metrics` and `/healthz` on this port (also `--metrics-port`; `serve` uses its own port).',
          ),
      })
      .strict()
      .prefault({}),
    judge: judgeConfigSchema.describe('The LLM judge of `tool_call_appropriateness` and `rubric`.'),
    suites: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Suite files whose test cases are scored (paths relative to the config file; also `--suite`).',
      ),
    rules: z
      .array(ruleSchema)
      .default([])
      .describe(
        'Production rules: score matching traces that belong to no test case (see docs/service.md).',
      ),
    toolHealth: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            '`serve` and `worker` run `tool_errors`, `tool_arguments` and `tool_loops` on every trace that no suite or rule scores; results carry `testCaseId: "rule:tool-health"`.',
          ),
        sampleRate: z.coerce
          .number()
          .min(0)
          .max(1)
          .default(1)
          .describe(
            'Share of those traces scored for tool health, decided by the trace id (as rules sample).',
          ),
        maxErrorRate: z.coerce
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            '`tool_errors` fails a trace whose failed calls exceed this share of its calls.',
          ),
        minRepeats: z.coerce
          .number()
          .int()
          .min(2)
          .default(DEFAULT_MIN_REPEATS)
          .describe(
            '`tool_loops` fails a trace with this many identical calls (tool and arguments).',
          ),
        maxCallsPerTool: positiveInt()
          .optional()
          .describe('`tool_loops` also fails a trace that calls one tool more often than this.'),
        maxToolsPerService: positiveInt()
          .default(30)
          .describe(
            'Tools labelled by name per service in `spanscore_tool_calls_total` and the per-tool counters; past this many distinct ones, `other`.',
          ),
      })
      .strict()
      .prefault({})
      .describe(
        'Tool health: reference-free scoring of every trace no suite or rule claims (see docs/service.md).',
      ),
    sessions: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            'Read a session id from every trace (a conversation, one trace per turn), so that session test cases (`session: true`) are scored on their sessions; off: traces are only scored one by one.',
          ),
        idAttributes: z
          .array(z.string().min(1))
          .default([])
          .describe(
            'Span attributes that carry a session id, read after the defaults (`spanscore.session.id`, `gen_ai.conversation.id`, `session.id`, `langfuse.session.id`, `ai.telemetry.metadata.sessionId`, LangSmith metadata and Traceloop association properties `session_id`/`thread_id`/`conversation_id`); a dotted name is also looked for inside JSON attributes.',
          ),
        idleMs: positiveInt()
          .default(600_000)
          .describe(
            '`serve` and `worker`: a session is scored this long after its latest trace (at once when a trace says `spanscore.session.end = true`); a trace after that scores it again.',
          ),
        maxTraces: positiveInt()
          .default(50)
          .describe(
            'Traces of one session: at this many it is scored as it stands, its result saying it was cut, and further traces are not added.',
          ),
        maxAgeMs: positiveInt()
          .default(86_400_000)
          .describe(
            'A session is scored as it stands this long after its first trace (its result saying it was cut), and its traces are kept no longer.',
          ),
        maxOpen: positiveInt()
          .default(1000)
          .describe(
            'Memory driver: sessions held (their traces kept to score them again); when full, the oldest is scored now and let go (`spanscore_sessions_evicted_total`).',
          ),
      })
      .strict()
      .prefault({})
      .describe('Sessions: the traces of one conversation scored together (see docs/sessions.md).'),
    export: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            "Write evaluation spans into the tracing backend. Off: results go to the results store, metrics and files only. Also off, with a start-up line, when the endpoint would be this service's own receiver (nothing set and `serve` on port 4318).",
          ),
        url: z
          .string()
          .url()
          .optional()
          .describe(
            'The OTLP/HTTP traces endpoint. Default: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`.',
          ),
        headers: z
          .record(z.string(), z.string())
          .optional()
          .describe(
            'Headers of every export request. Default: `OTEL_EXPORTER_OTLP_(TRACES_)HEADERS`.',
          ),
        protocol: z
          .enum(['http/protobuf', 'http/json'])
          .optional()
          .describe(
            'The OTLP/HTTP encoding. Default: `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`, else `http/protobuf`.',
          ),
        batchMaxSpans: positiveInt()
          .default(1024)
          .describe(
            'Evaluation spans of concurrent traces go out in one request of up to this many.',
          ),
        batchDelayMs: z.coerce
          .number()
          .int()
          .min(0)
          .default(10)
          .describe('How long a batch of evaluation spans may wait for more.'),
        resultsFile: z
          .string()
          .min(1)
          .optional()
          .describe('Also append every result to this JSON Lines file (also `--results`).'),
        logResults: z.boolean().default(true).describe('Also log a line per result.'),
        retryMaxAgeMs: positiveInt()
          .default(3_600_000)
          .describe(
            "A failed export of evaluation spans is retried until the trace's job is this old, not a fixed number of times. The results are stored meanwhile.",
          ),
        retryMaxBackoffMs: positiveInt()
          .default(60_000)
          .describe('The exponential backoff between export retries stops growing here.'),
        logs: z
          .boolean()
          .default(false)
          .describe('Also emit each result as an OTLP log record (`gen_ai.evaluation.result`).'),
        logsUrl: z
          .string()
          .url()
          .optional()
          .describe(
            'The OTLP/HTTP logs endpoint. Default: `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/logs`.',
          ),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        maxServices: positiveInt()
          .default(20)
          .describe(
            'Evaluated services labelled by name in `/metrics`; past this many distinct ones, `other`.',
          ),
      })
      .strict()
      .prefault({}),
    results: z
      .object({
        maxResults: positiveInt()
          .optional()
          .describe(
            'Most recent results kept for `/api/v1` and `/ui/` (memory: a ring; BullMQ: a capped Redis stream). Default: 10,000 with the memory driver (it holds them in its bounded heap), 50,000 with BullMQ.',
          ),
        maxRuns: positiveInt()
          .optional()
          .describe(
            'Run records kept by the memory driver (Redis expires them by `retentionHours`). Default: 5,000.',
          ),
        retentionHours: z.coerce
          .number()
          .positive()
          .default(24)
          .describe('Results, run records and per-minute summaries older than this are dropped.'),
        traceUrlTemplate: z
          .string()
          .refine(t => t.includes('{traceId}'), 'must contain {traceId}')
          .optional()
          .describe(
            "The results page links each trace there; `{traceId}` is replaced, e.g. Jaeger's `http://localhost:16686/trace/{traceId}`.",
          ),
        readTokens: z
          .array(z.string().min(1))
          .default([])
          .describe(
            'Read tokens: when any is set, `/api/v1` needs one of them as its bearer token (401 without, 403 with an ingest-only token). A list, so a token rotates without downtime.',
          ),
        public: z
          .boolean()
          .default(false)
          .describe(
            'Serve `/ui/` and `/api/v1` to any client even with no read token set. Without it, a service on a non-loopback address with no read token answers results to loopback clients only (others get 403); ingest is not affected.',
          ),
        corsOrigins: z
          .array(z.string().url())
          .default([])
          .describe('Origins allowed to read `/api/v1` from a browser (CORS); none by default.'),
        storeContent: z
          .boolean()
          .default(true)
          .describe(
            'Keep tool-call arguments and results in run records. Off: they are scored all the same but never stored; run records keep tool names only and say so.',
          ),
        write: z
          .boolean()
          .default(true)
          .describe(
            "Write this process's results and run records to the results store. Off: traces are scored, exported and counted in `/metrics` as usual, but nothing is kept for `/api/v1` and `/ui/` (they show what other processes wrote): for workers of a deployment that reads results in its tracing backend only, and to measure what the store costs.",
          ),
      })
      .strict()
      .prefault({}),
    shutdownDeadlineMs: positiveInt()
      .default(10_000)
      .describe(
        'How long a shutdown (SIGTERM, SIGINT) may take to finish the work in hand before the process exits anyway.',
      ),
  })
  .strict();

/** The validated configuration. */
export type Config = z.infer<typeof configSchema>;

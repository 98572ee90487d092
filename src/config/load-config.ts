import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { configSchema, type Config } from './config-schema.js';
import { describeZodIssue } from './describe-zod-issue.js';

/**
 * Environment variables read, and where each goes. Some also go by an unprefixed name
 * ({@link UNPREFIXED_VARIABLES}).
 */
export const CONFIG_ENV = {
  SPANSCORE_QUEUE_DRIVER: ['queue', 'driver'],
  SPANSCORE_REDIS_URL: ['queue', 'redisUrl'],
  SPANSCORE_REDIS_PREFIX: ['queue', 'prefix'],
  SPANSCORE_REDIS_CLUSTER_NODES: ['queue', 'redisClusterNodes'],
  SPANSCORE_REDIS_USERNAME: ['queue', 'redisUsername'],
  SPANSCORE_REDIS_PASSWORD: ['queue', 'redisPassword'],
  SPANSCORE_REDIS_TLS: ['queue', 'redisTls'],
  SPANSCORE_REDIS_TLS_CA_FILE: ['queue', 'redisTlsCaFile'],
  SPANSCORE_QUEUE_SHARDS: ['queue', 'shards'],
  SPANSCORE_PORT: ['receiver', 'port'],
  SPANSCORE_HOST: ['receiver', 'host'],
  SPANSCORE_MAX_BODY_BYTES: ['receiver', 'maxBodyBytes'],
  SPANSCORE_MAX_SPANS_PER_REQUEST: ['receiver', 'maxSpansPerRequest'],
  SPANSCORE_MAX_ITEMS_PER_REQUEST: ['receiver', 'maxItemsPerRequest'],
  SPANSCORE_MAX_SPANS_PER_TRACE: ['assembly', 'maxSpansPerTrace'],
  SPANSCORE_UNSCORED_TTL_MS: ['assembly', 'unscoredTtlMs'],
  SPANSCORE_MAX_BACKLOG_AGE_MS: ['admission', 'maxBacklogAgeMs'],
  SPANSCORE_WORKER_ABSENCE_MS: ['admission', 'workerAbsenceMs'],
  SPANSCORE_MAX_REDIS_MEMORY_RATIO: ['admission', 'maxRedisMemoryRatio'],
  SPANSCORE_AUTH_TOKEN: ['receiver', 'authToken'],
  SPANSCORE_INGEST_TOKENS: ['receiver', 'authTokens'],
  SPANSCORE_READ_TOKENS: ['results', 'readTokens'],
  SPANSCORE_RESULTS_PUBLIC: ['results', 'public'],
  SPANSCORE_CORS_ORIGINS: ['results', 'corsOrigins'],
  SPANSCORE_STORE_CONTENT: ['results', 'storeContent'],
  SPANSCORE_RESULTS_WRITE: ['results', 'write'],
  SPANSCORE_RESULTS_LAYOUT: ['results', 'layout'],
  SPANSCORE_EXPORT: ['export', 'enabled'],
  SPANSCORE_SETTLE_MS: ['assembly', 'settleMs'],
  SPANSCORE_MAX_WAIT_MS: ['assembly', 'maxWaitMs'],
  SPANSCORE_RESCORE_LATE_SPANS: ['assembly', 'rescoreLateSpans'],
  SPANSCORE_EXPORT_LOGS: ['export', 'logs'],
  SPANSCORE_EXPORT_RETRY_MAX_AGE_MS: ['export', 'retryMaxAgeMs'],
  SPANSCORE_CONCURRENCY: ['worker', 'concurrency'],
  SPANSCORE_LOCK_DURATION_MS: ['worker', 'lockDurationMs'],
  SPANSCORE_STALLED_INTERVAL_MS: ['worker', 'stalledIntervalMs'],
  SPANSCORE_RESULTS_FILE: ['export', 'resultsFile'],
  SPANSCORE_METRICS_PORT: ['worker', 'metricsPort'],
  SPANSCORE_METRICS_MAX_SERVICES: ['metrics', 'maxServices'],
  SPANSCORE_RESULTS_MAX: ['results', 'maxResults'],
  SPANSCORE_MEMORY_HEAP_MB: ['queue', 'memoryHeapMb'],
  SPANSCORE_MEMORY_THREADS: ['queue', 'memoryThreads'],
  SPANSCORE_RESULTS_RETENTION_HOURS: ['results', 'retentionHours'],
  SPANSCORE_TRACE_URL_TEMPLATE: ['results', 'traceUrlTemplate'],
  SPANSCORE_SUITES: ['suites'],
  SPANSCORE_JUDGE_MODEL: ['judge', 'model'],
  SPANSCORE_JUDGE_TIMEOUT_MS: ['judge', 'timeoutMs'],
  SPANSCORE_JUDGE_MAX_RETRIES: ['judge', 'maxRetries'],
  SPANSCORE_JUDGE_CONCURRENCY: ['judge', 'concurrency'],
  SPANSCORE_JUDGE_RATE_LIMIT_MAX: ['judge', 'rateLimit', 'max'],
  SPANSCORE_JUDGE_RATE_LIMIT_DURATION_MS: ['judge', 'rateLimit', 'durationMs'],
  SPANSCORE_JUDGE_DAILY_BUDGET_USD: ['judge', 'dailyBudgetUsd'],
  SPANSCORE_TOOL_HEALTH: ['toolHealth', 'enabled'],
  SPANSCORE_TOOL_HEALTH_SAMPLE_RATE: ['toolHealth', 'sampleRate'],
  SPANSCORE_LEARN_SCHEMAS: ['toolHealth', 'learnSchemas'],
  SPANSCORE_LOGS_WAIT_MS: ['assembly', 'logsWaitMs'],
  SPANSCORE_SESSIONS: ['sessions', 'enabled'],
  SPANSCORE_SESSION_ID_ATTRIBUTES: ['sessions', 'idAttributes'],
  SPANSCORE_SESSION_IDLE_MS: ['sessions', 'idleMs'],
} as const;

/** Variables holding a comma-separated list. */
export const LIST_VARIABLES: ReadonlySet<string> = new Set([
  'SPANSCORE_SUITES',
  'SPANSCORE_REDIS_CLUSTER_NODES',
  'SPANSCORE_INGEST_TOKENS',
  'SPANSCORE_READ_TOKENS',
  'SPANSCORE_CORS_ORIGINS',
  'SPANSCORE_SESSION_ID_ATTRIBUTES',
]);

/** Variables holding a switch: `true`, `1` or `on`; `false`, `0` or `off`. */
export const SWITCH_VARIABLES: ReadonlySet<string> = new Set([
  'SPANSCORE_SESSIONS',
  'SPANSCORE_RESCORE_LATE_SPANS',
  'SPANSCORE_EXPORT_LOGS',
  'SPANSCORE_REDIS_TLS',
  'SPANSCORE_RESULTS_PUBLIC',
  'SPANSCORE_STORE_CONTENT',
  'SPANSCORE_EXPORT',
  'SPANSCORE_TOOL_HEALTH',
]);

/**
 * The usual unprefixed names some variables also go by (Langfuse's and other tools'); the
 * `SPANSCORE_` name wins. `REDIS_URL` stands for `SPANSCORE_REDIS_URL` likewise.
 */
export const UNPREFIXED_VARIABLES: Readonly<Partial<Record<string, string>>> = {
  SPANSCORE_REDIS_CLUSTER_NODES: 'REDIS_CLUSTER_NODES',
  SPANSCORE_REDIS_USERNAME: 'REDIS_USERNAME',
  SPANSCORE_REDIS_PASSWORD: 'REDIS_PASSWORD',
  SPANSCORE_REDIS_URL: 'REDIS_URL',
};

/**
 * Builds the configuration once, at start-up: the config file (if any), then `SPANSCORE_*`
 * variables, then command-line overrides, validated by one schema. An error names the file or
 * variable, the path and what was expected (`SS_USAGE`); an unknown key, also the known key of
 * its section nearest to it, when one is near enough to be a typo (`did you mean "toolHealth"?`).
 * Suite and schema paths become absolute (relative to the config file). The result is frozen.
 */
export async function loadConfig(
  options: { file?: string; env?: NodeJS.ProcessEnv; overrides?: Record<string, unknown> } = {},
): Promise<Readonly<Config>> {
  const env = options.env ?? process.env;
  let raw: Record<string, unknown> = {};
  if (options.file) {
    try {
      raw = (parse(await readFile(options.file, 'utf8')) as Record<string, unknown> | null) ?? {};
    } catch (error) {
      throw new SpanscoreError('SS_USAGE', `cannot read config: ${(error as Error).message}`, {
        location: { file: options.file },
        cause: error,
      });
    }
  }
  /** Config variables set, by the name they were actually given as. */
  const fromEnv = new Map<string, string>();
  for (const [name, path] of Object.entries(CONFIG_ENV)) {
    const given = env[name] ? name : (UNPREFIXED_VARIABLES[name] ?? name);
    const value = env[given];
    if (value === undefined || value === '') continue;
    fromEnv.set(name, given);
    if (LIST_VARIABLES.has(name))
      set(
        raw,
        path,
        value
          .split(',')
          .map(s => s.trim())
          .filter(Boolean),
      );
    else if (SWITCH_VARIABLES.has(name)) set(raw, path, parseSwitch(given, value));
    else set(raw, path, value);
  }
  for (const [path, value] of Object.entries(options.overrides ?? {}))
    if (value !== undefined) set(raw, path.split('.'), value);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    // An unknown key first: a misspelled key is often also a missing required one, and the
    // unknown key, with the key meant, explains both.
    const issue =
      parsed.error.issues.find(i => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!;
    const path = issue.path.join('.');
    // An array's issue has the item's index in its path (`queue.redisClusterNodes.1`).
    const variable = Object.entries(CONFIG_ENV)
      .filter(([name, p]) => fromEnv.has(name) && `${path}.`.startsWith(`${p.join('.')}.`))
      .map(([name]) => fromEnv.get(name))[0];
    const where = variable
      ? `environment variable ${variable}`
      : options.file
        ? path
          ? `${options.file}: ${path}`
          : `${options.file} (top level)`
        : path || 'the top level';
    throw new SpanscoreError(
      'SS_USAGE',
      `invalid configuration, ${where}: ${describeZodIssue(issue, configSchema)}`,
    );
  }
  const config = parsed.data;
  const { model, dailyBudgetUsd, prices } = config.judge;
  if (dailyBudgetUsd !== undefined && model !== undefined && !prices[model]) {
    throw new SpanscoreError(
      'SS_USAGE',
      `invalid configuration: judge.dailyBudgetUsd needs a price for the judge model "${model}" in judge.prices (inputPerMillionTokens, outputPerMillionTokens)`,
    );
  }
  const base = options.file ? dirname(resolve(options.file)) : process.cwd();
  config.suites = config.suites.map(s => resolve(base, s));
  for (const given of config.toolHealth.schemas) given.file = resolve(base, given.file);
  const { redisUrl: url, redisClusterNodes: nodes } = config.queue;
  if (url && nodes) {
    throw new SpanscoreError(
      'SS_USAGE',
      'invalid configuration: both a Redis URL (REDIS_URL, queue.redisUrl) and Redis Cluster nodes (REDIS_CLUSTER_NODES, queue.redisClusterNodes) are set; keep one',
    );
  }
  config.queue.driver ??= url || nodes ? 'bullmq' : 'memory';
  if (config.queue.driver === 'bullmq' && !url && !nodes) {
    throw new SpanscoreError(
      'SS_USAGE',
      'invalid configuration: queue.driver is bullmq but no Redis URL is set (REDIS_URL, SPANSCORE_REDIS_URL or queue.redisUrl), nor Redis Cluster nodes (REDIS_CLUSTER_NODES or queue.redisClusterNodes)',
    );
  }
  return deepFreeze(config);
}

function parseSwitch(variable: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'on') return true;
  if (v === 'false' || v === '0' || v === 'off') return false;
  throw new SpanscoreError(
    'SS_USAGE',
    `invalid configuration, environment variable ${variable}: expected true, 1 or on; false, 0 or off; got "${value}"`,
  );
}

function set(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1)!] = value;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

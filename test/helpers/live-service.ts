import { expect } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/config-schema.js';
import { startService, type ServiceHooks } from '../../src/server/start-service.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import { otlpRequest, type SpanInput } from './otlp-json-builder.js';
import { REDIS_URL, redisFor, testPrefix } from './redis.js';

/** What {@link startLiveService} started, and how a test talks to it. */
export interface LiveService {
  config: Config;
  origin: string;
  /** `/metrics`'s URL. */
  metrics: string;
  /** What the service logged, a line each. */
  lines: string[];
  /** The bullmq driver's Redis, under this test's own prefix; `undefined` with the memory driver. */
  redis: ReturnType<typeof redisFor> | undefined;
  prefix: string;
  /**
   * Sends spans as an OTLP/JSON request, asserts the receiver accepted it (200) and returns its
   * answer (`{}`, or a `partialSuccess`).
   */
  send: (t: { spans: SpanInput[] }) => Promise<unknown>;
  /** GETs `/api/v1/<path>`: its status and JSON body. */
  get: <T>(path: string) => Promise<{ status: number; body: T }>;
}

/**
 * `serve` (receiver and workers in one process) on a loopback port of its own, with the test's
 * `overrides` over a test's usual settings (`assembly.settleMs` 100), on the `driver` given: with
 * bullmq, on the machine's Redis under a fresh prefix. Whatever it starts is stopped by the
 * closers it pushes to `closers` (the caller runs them after each test, last first). `hooks`:
 * an `exporter` standing in for the evaluation-span exporter, and result `sinks` after the
 * built-in ones.
 */
export async function startLiveService(
  driver: 'memory' | 'bullmq',
  overrides: Record<string, unknown>,
  closers: Array<() => Promise<unknown>>,
  before?: (prefix: string) => Promise<void>,
  hooks: Pick<ServiceHooks, 'exporter' | 'sinks'> = {},
): Promise<LiveService> {
  const prefix = testPrefix();
  const redis = driver === 'bullmq' ? redisFor(prefix) : undefined;
  if (redis) closers.push(redis.cleanup);
  await before?.(prefix);
  const config = await loadConfig({
    env: {},
    overrides: {
      'queue.driver': driver,
      ...(driver === 'bullmq' && { 'queue.redisUrl': REDIS_URL, 'queue.prefix': prefix }),
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 100,
      ...overrides,
    },
  });
  const lines: string[] = [];
  const service = await startService(
    config,
    { receiver: true, workers: true },
    { log: line => lines.push(line), ...hooks },
  );
  closers.push(() => service.close());
  // The test's own connection fails fast while it connects (the commands role has no offline
  // queue): a test's first command, sent at once, could find it still connecting on a busy host.
  if (redis) await whenReady(redis.commands, 10_000);
  const origin = new URL(service.url!).origin;
  return {
    config,
    origin,
    metrics: `${origin}/metrics`,
    lines,
    redis,
    prefix,
    send: async t => {
      const response = await fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(otlpRequest(t.spans)),
      });
      expect(response.status).toBe(200);
      return response.json();
    },
    get: async <T>(path: string) => {
      const response = await fetch(`${origin}/api/v1/${path}`);
      return { status: response.status, body: (await response.json()) as T };
    },
  };
}

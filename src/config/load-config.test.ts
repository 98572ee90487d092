import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';

describe('loadConfig', () => {
  it('has working defaults: the memory driver without Redis, port 4318, 2 s settle, 30 s max wait', async () => {
    const config = await loadConfig({ env: {} });
    expect(config).toMatchObject({
      queue: { driver: 'memory', prefix: 'spanscore' },
      receiver: { port: 4318, host: '0.0.0.0' },
      assembly: { settleMs: 2000, maxWaitMs: 30_000 },
      suites: [],
      rules: [],
    });
    expect(Object.isFrozen(config.assembly)).toBe(true);
  });

  it('picks the bullmq driver when REDIS_URL is set, and reads SPANSCORE_* variables', async () => {
    const config = await loadConfig({
      env: {
        REDIS_URL: 'redis://cache:6379',
        SPANSCORE_PORT: '9999',
        SPANSCORE_SETTLE_MS: '500',
        SPANSCORE_SUITES: 'a.yaml, b.yaml',
        SPANSCORE_RESCORE_LATE_SPANS: 'true',
      },
    });
    expect(config.queue).toMatchObject({ driver: 'bullmq', redisUrl: 'redis://cache:6379' });
    expect(config.receiver.port).toBe(9999);
    expect(config.assembly).toMatchObject({ settleMs: 500, rescoreLateSpans: true });
    expect(config.suites).toEqual([join(process.cwd(), 'a.yaml'), join(process.cwd(), 'b.yaml')]);
  });

  it('picks the bullmq driver on a Redis Cluster from REDIS_CLUSTER_NODES, with auth, TLS and shards', async () => {
    const config = await loadConfig({
      env: {
        REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-2.internal:7001',
        REDIS_PASSWORD: 's3cret',
        SPANSCORE_REDIS_TLS: 'true',
        SPANSCORE_QUEUE_SHARDS: '3',
      },
    });
    expect(config.queue).toMatchObject({
      driver: 'bullmq',
      redisClusterNodes: ['10.0.0.1:7000', 'redis-2.internal:7001'],
      redisPassword: 's3cret',
      redisTls: true,
      shards: 3,
    });
    expect(config.queue.redisUrl).toBeUndefined();
    // The SPANSCORE_ name wins over the plain one.
    const named = await loadConfig({
      env: { REDIS_CLUSTER_NODES: 'a:1', SPANSCORE_REDIS_CLUSTER_NODES: 'b:2' },
    });
    expect(named.queue.redisClusterNodes).toEqual(['b:2']);
  });

  it('refuses both a Redis URL and cluster nodes, a node without a port, braces in the prefix and 0 shards', async () => {
    await expect(
      loadConfig({ env: { REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'r:7000' } }),
    ).rejects.toThrow(/both a Redis URL .* and Redis Cluster nodes .* keep one/);
    await expect(loadConfig({ env: { REDIS_CLUSTER_NODES: 'r:7000,r2' } })).rejects.toThrow(
      /environment variable REDIS_CLUSTER_NODES: .*expected host:port/,
    );
    await expect(loadConfig({ env: { SPANSCORE_REDIS_PREFIX: 'app:{x}' } })).rejects.toThrow(
      /SPANSCORE_REDIS_PREFIX.*no \{ or \}/,
    );
    await expect(loadConfig({ env: { SPANSCORE_QUEUE_SHARDS: '0' } })).rejects.toThrow(
      /SPANSCORE_QUEUE_SHARDS/,
    );
  });

  it('reads a config file, resolving suite paths from its folder; overrides win', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-config-'));
    writeFileSync(
      join(dir, 'spanscore.yaml'),
      'suites: [suites/agent.yaml]\nworker: { concurrency: 8 }\nrules:\n  - { name: guard, scorers: [{ name: tool_trajectory, maxCalls: 10 }] }\n',
    );
    const config = await loadConfig({
      file: join(dir, 'spanscore.yaml'),
      env: {},
      overrides: { 'receiver.port': 0 },
    });
    expect(config.suites).toEqual([join(dir, 'suites/agent.yaml')]);
    expect(config.worker.concurrency).toBe(8);
    expect(config.receiver.port).toBe(0);
    expect(config.rules[0]).toMatchObject({ name: 'guard', sampleRate: 1 });
  });

  it.each([
    [
      { env: { SPANSCORE_PORT: 'http' } },
      /invalid configuration, environment variable SPANSCORE_PORT: .*expected number/,
    ],
    [
      { env: { SPANSCORE_QUEUE_DRIVER: 'bullmq' } },
      /queue.driver is bullmq but no Redis URL is set/,
    ],
    [{ env: { REDIS_URL: 'not a url' } }, /environment variable REDIS_URL: Invalid URL/],
  ])('names what is wrong: %j', async (options, message) => {
    await expect(loadConfig(options)).rejects.toMatchObject({
      code: 'SS_USAGE',
      message: expect.stringMatching(message),
    });
  });

  it('reads the judge section from SPANSCORE_JUDGE_* variables, with rate limit and budget', async () => {
    const config = await loadConfig({
      env: {
        SPANSCORE_JUDGE_MODEL: 'gpt-4o-mini',
        SPANSCORE_JUDGE_RATE_LIMIT_MAX: '30',
        SPANSCORE_JUDGE_RATE_LIMIT_DURATION_MS: '60000',
        SPANSCORE_JUDGE_DAILY_BUDGET_USD: '2.5',
      },
      overrides: {
        'judge.prices': {
          'gpt-4o-mini': { inputPerMillionTokens: 0.15, outputPerMillionTokens: 0.6 },
        },
      },
    });
    expect(config.judge).toMatchObject({
      model: 'gpt-4o-mini',
      rateLimit: { max: 30, durationMs: 60_000 },
      dailyBudgetUsd: 2.5,
      timeoutMs: 60_000,
      attempts: 5,
    });
  });

  it('refuses a daily budget without a price for the judge model, and a bad budget variable', async () => {
    await expect(
      loadConfig({ env: { SPANSCORE_JUDGE_MODEL: 'm', SPANSCORE_JUDGE_DAILY_BUDGET_USD: '1' } }),
    ).rejects.toMatchObject({
      code: 'SS_USAGE',
      message: expect.stringContaining(
        'judge.dailyBudgetUsd needs a price for the judge model "m"',
      ),
    });
    await expect(
      loadConfig({ env: { SPANSCORE_JUDGE_DAILY_BUDGET_USD: 'lots' } }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('environment variable SPANSCORE_JUDGE_DAILY_BUDGET_USD'),
    });
  });

  it('bounds an export request at 4 MiB less 64 KiB, and refuses a bound under 64 KiB', async () => {
    expect((await loadConfig({ env: {} })).export.maxBatchBytes).toBe(4 * 1024 * 1024 - 65_536);
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-config-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'export: { maxBatchBytes: 65536 }\n');
    expect((await loadConfig({ file, env: {} })).export.maxBatchBytes).toBe(65_536);
    writeFileSync(file, 'export: { maxBatchBytes: 65535 }\n');
    await expect(loadConfig({ file, env: {} })).rejects.toThrow(/export\.maxBatchBytes.*65536/);
  });

  it('names the file and field of an unknown setting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-config-'));
    writeFileSync(join(dir, 'c.yaml'), 'assembly: { settleMS: 10 }\n');
    await expect(loadConfig({ file: join(dir, 'c.yaml'), env: {} })).rejects.toThrow(
      /c\.yaml: assembly: unknown field\(s\) "settleMS"/,
    );
  });

  it('names a top-level unknown setting without an empty path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-config-'));
    writeFileSync(join(dir, 'c.yaml'), 'retries: { max: 10 }\n');
    await expect(loadConfig({ file: join(dir, 'c.yaml'), env: {} })).rejects.toThrow(
      `invalid configuration, ${join(dir, 'c.yaml')} (top level): unknown field(s) "retries"`,
    );
  });

  it('names the key meant by a misspelled one, at any depth, before the required key it misses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-config-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'toolHeath: { enabled: false }\n');
    await expect(loadConfig({ file, env: {} })).rejects.toThrow(
      `invalid configuration, ${file} (top level): unknown field(s) "toolHeath" (did you mean "toolHealth"?)`,
    );
    writeFileSync(file, 'receiver: { prot: 4318 }\n');
    await expect(loadConfig({ file, env: {} })).rejects.toThrow(
      `${file}: receiver: unknown field(s) "prot" (did you mean "port"?)`,
    );
    // `nmae` is also a missing `name`: the unknown key is what explains it.
    writeFileSync(file, 'rules:\n  - { nmae: guard, scorers: [tool_errors] }\n');
    await expect(loadConfig({ file, env: {} })).rejects.toThrow(
      `${file}: rules.0: unknown field(s) "nmae" (did you mean "name"?)`,
    );
  });

  it('turns tool health off and samples it from the environment', async () => {
    const config = await loadConfig({
      env: { SPANSCORE_TOOL_HEALTH: 'off', SPANSCORE_TOOL_HEALTH_SAMPLE_RATE: '0.25' },
    });
    expect(config.toolHealth).toMatchObject({ enabled: false, sampleRate: 0.25 });
    expect((await loadConfig({ env: {} })).toolHealth).toMatchObject({
      enabled: true,
      sampleRate: 1,
    });
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config/load-config.js';
import { startService } from '../src/server/start-service.js';

const ROOT = new URL('../', import.meta.url).pathname;

describe('deployment files (no Docker engine here: checked as far as spanscore itself can)', () => {
  const compose = parse(readFileSync(`${ROOT}docker-compose.yml`, 'utf8')) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string> }>;
  };

  it('docker-compose runs Redis, Tempo, a Collector in front, a receiver, workers, Prometheus and Grafana', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'grafana',
      'otel-collector',
      'prometheus',
      'redis',
      'spanscore',
      'tempo',
      'worker',
    ]);
    expect(compose.services.worker!.command).toContain('--metrics-port');
    expect(compose.services.spanscore!.command).toEqual([
      'serve',
      '--no-worker',
      '--config',
      'config/docker/spanscore.yaml',
    ]);
    expect(compose.services.worker!.command![0]).toBe('worker');
  });

  it('the config the containers use loads, with its suite and rules', async () => {
    const config = await loadConfig({
      file: `${ROOT}config/docker/spanscore.yaml`,
      env: { REDIS_URL: 'redis://redis:6379' },
    });
    expect(config.queue.driver).toBe('bullmq');
    expect(config.rules.map(r => r.name)).toEqual(['no-destructive-tools']);
    // The suites and rules resolve (a bad scorer name or option would throw here).
    const local = await loadConfig({
      file: `${ROOT}config/docker/spanscore.yaml`,
      env: {},
      overrides: { 'receiver.port': 0, 'receiver.host': '127.0.0.1' },
    });
    const service = await startService(
      local,
      { receiver: true, workers: true },
      { log: () => undefined },
    );
    await service.close();
  });

  it('the Collector forwards traces to both Tempo and spanscore, and logs to spanscore', () => {
    const collector = parse(readFileSync(`${ROOT}config/docker/otel-collector.yaml`, 'utf8')) as {
      service: { pipelines: { traces: { exporters: string[] }; logs: { exporters: string[] } } };
      exporters: Record<string, { endpoint: string }>;
    };
    expect(collector.service.pipelines.traces.exporters).toEqual([
      'otlp/tempo',
      'otlphttp/spanscore',
    ]);
    expect(collector.service.pipelines.logs.exporters).toEqual(['otlphttp/spanscore']);
    expect(collector.exporters['otlphttp/spanscore']!.endpoint).toBe('http://spanscore:4318');
  });
});

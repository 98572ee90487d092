import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { waitFor } from '../helpers/redis.js';
import { sendKnownTraffic, serveWithKnownTraffic } from '../helpers/results-traffic.js';
import { serveDefaults } from '../helpers/health-traffic.js';

// Debian's prometheus package (`apt-get install prometheus`; .ci/run installs it) gives both.
const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const PROMETHEUS = process.env.PROMETHEUS_PATH ?? '/usr/bin/prometheus';
const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
const RULES = join(ROOT, 'config/prometheus/spanscore-rules.yml');

function needs(binary: string): void {
  if (!existsSync(binary))
    throw new Error(`${binary} not found: apt-get install prometheus (it has promtool too)`);
}

interface Panel {
  title: string;
  type: string;
  datasource?: { type: string };
  targets?: Array<{ expr?: string; query?: string; datasource?: { type: string } }>;
}
const dashboard = JSON.parse(
  readFileSync(join(ROOT, 'config/grafana/dashboards/spanscore.json'), 'utf8'),
) as { panels: Panel[]; templating: { list: Array<{ name: string; type: string }> } };

/** Every PromQL expression of the dashboard, with Grafana's variables as a query would get them. */
const dashboardQueries = dashboard.panels.flatMap(p =>
  (p.targets ?? [])
    .filter(t => t.datasource?.type === 'prometheus' && t.expr)
    .map(t => ({
      panel: p.title,
      expr: t
        .expr!.replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '5m')
        .replaceAll('$scorer', '.*')
        .replaceAll('$service', '.*'),
    })),
);
const ruleExprs = (
  parse(readFileSync(RULES, 'utf8')) as {
    groups: Array<{ rules: Array<{ record?: string; alert?: string; expr: string }> }>;
  }
).groups.flatMap(g => g.rules.map(r => ({ name: r.record ?? r.alert!, expr: r.expr })));

describe('the shipped Prometheus rules (promtool)', () => {
  it('pass promtool check rules and the unit tests of every rule', async () => {
    needs(PROMTOOL);
    const check = await run(PROMTOOL, ['check', 'rules', RULES]);
    expect(check.stdout).toContain(`SUCCESS: ${ruleExprs.length} rules found`);
    const test = await run(PROMTOOL, ['test', 'rules', 'spanscore-rules.test.yml'], {
      cwd: join(ROOT, 'config/prometheus'),
    });
    expect(test.stdout).toContain('SUCCESS');
    // Every rule has a unit test.
    const tests = readFileSync(join(ROOT, 'config/prometheus/spanscore-rules.test.yml'), 'utf8');
    for (const { name } of ruleExprs) expect(tests).toContain(name);
  });

  it('prometheus.yml passes promtool check config', async () => {
    needs(PROMTOOL);
    const check = await run(PROMTOOL, ['check', 'config', 'prometheus.yml'], {
      cwd: join(ROOT, 'config/prometheus'),
    });
    expect(check.stdout).toContain('SUCCESS');
  });
});

describe('a real Prometheus scraping a live serve fed known traces', () => {
  let dir: string;
  let prometheus: ChildProcess | undefined;
  let api: string;
  let served: Awaited<ReturnType<typeof serveWithKnownTraffic>>;
  // A second serve as a newcomer runs it (tool health on), fed the AI SDK 7's tool-health capture.
  let health: Awaited<ReturnType<typeof serveDefaults>>;
  const query = async (expr: string) => {
    const response = await fetch(
      `${api}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`,
    );
    return (await response.json()) as {
      status: string;
      error?: string;
      data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
  };

  beforeAll(async () => {
    needs(PROMETHEUS);
    dir = await mkdtemp(join(tmpdir(), 'spanscore-prometheus-'));
    // First traffic creates the series; the second, after a scrape, is what rates see.
    served = await serveWithKnownTraffic();
    health = await serveDefaults({ 'queue.driver': 'memory' });
    await health.send();
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    await writeFile(join(dir, 'spanscore-rules.yml'), readFileSync(RULES));
    await writeFile(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'rule_files: [spanscore-rules.yml]',
        'scrape_configs:',
        '  - job_name: spanscore-serve',
        `    static_configs: [{ targets: ['${new URL(served.origin).host}'] }]`,
        '  - job_name: spanscore-health',
        `    static_configs: [{ targets: ['${new URL(health.origin).host}'] }]`,
      ].join('\n'),
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--enable-feature=exemplar-storage',
      ],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () => {
        try {
          const up = await query('up{job="spanscore-serve"}');
          return up.data.result[0]?.value[1] === '1';
        } catch {
          return false;
        }
      },
      'Prometheus scrapes serve',
      30_000,
    );
    await waitFor(
      async () => (await query('up{job="spanscore-health"}')).data.result[0]?.value[1] === '1',
      'Prometheus scrapes the tool-health serve',
      30_000,
    );
    await sendKnownTraffic(served.origin);
    await health.send();
    await waitFor(
      async () =>
        (await query('sum(spanscore_evaluations_total{job="spanscore-serve"})')).data.result[0]
          ?.value[1] === '20' &&
        (await query('sum(spanscore_tool_calls_total{job="spanscore-health"})')).data.result[0]
          ?.value[1] === '16',
      'Prometheus sees the second traffic of both',
      30_000,
    );
    await new Promise(r => setTimeout(r, 3000)); // a few more scrapes and rule evaluations
  }, 90_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await served?.close();
    await health?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs every dashboard expression and every rule without error', async () => {
    expect(dashboardQueries.length).toBeGreaterThan(15);
    for (const { panel, expr } of [
      ...dashboardQueries,
      ...ruleExprs.map(r => ({ panel: r.name, expr: r.expr })),
    ]) {
      const answer = await query(expr);
      expect({ panel, status: answer.status, error: answer.error }).toEqual({
        panel,
        status: 'success',
        error: undefined,
      });
    }
  });

  it('gives the known pass rate per scorer, the score distribution and failures by scorer', async () => {
    // The known traffic's serve only (the other one scores tool health).
    const known = (expr: string) =>
      expr.replaceAll(
        'spanscore_evaluations_total{',
        'spanscore_evaluations_total{job="spanscore-serve",',
      );
    const passRate = dashboardQueries.find(q => q.panel === 'Pass rate per scorer')!;
    const byScorer = (await query(known(passRate.expr).replaceAll('[1m]', '[30s]'))).data.result;
    expect(
      Object.fromEntries(
        byScorer.map(r => [r.metric.scorer, Number(Number(r.value[1]).toFixed(6))]),
      ),
    ).toEqual({ tool_call_accuracy: 0.4, tool_correctness: 0.6 });

    const recorded = (await query('spanscore:pass_rate:ratio_rate5m')).data.result;
    expect(
      Object.fromEntries(
        recorded.map(r => [r.metric.scorer, Number(Number(r.value[1]).toFixed(6))]),
      ),
    ).toMatchObject({ tool_call_accuracy: 0.4, tool_correctness: 0.6 });

    const distribution = dashboardQueries.find(q => q.panel === 'Score distribution')!;
    const buckets = (await query(distribution.expr)).data.result;
    expect(buckets.length).toBe(11); // 0.1 … 1 and +Inf
    const failures = dashboardQueries.find(q => q.panel === 'Failures by scorer')!;
    expect(
      (await query(known(failures.expr).replace('[1m]', '[5m]'))).data.result
        .map(r => r.metric.scorer)
        .sort(),
    ).toEqual(['tool_call_accuracy', 'tool_correctness']);

    const notScored = (
      await query('sum by (reason) (spanscore_traces_not_scored_total{job="spanscore-serve"})')
    ).data.result;
    expect(Object.fromEntries(notScored.map(r => [r.metric.reason, r.value[1]]))).toEqual({
      no_test_case_id: '2',
      unknown_test_case: '2',
    });
  });

  it('gives each tool its error and invalid-argument rates, and fills the tool-health panels', async () => {
    const rate = async (expr: string) =>
      Object.fromEntries(
        (await query(expr)).data.result.map(r => [
          r.metric.tool,
          Number(Number(r.value[1]).toFixed(6)),
        ]),
      );
    // Per capture: get_weather 1 failed of 5 calls; convert_currency 1 invalid of 2 checked. A
    // tool with no failure has no series of failures, and so no rate (nothing to alert on).
    expect(
      await rate('spanscore:tool_error_rate:ratio_rate15m{service="ai-sdk-health-agent"}'),
    ).toEqual({ get_weather: 0.2 });
    expect(
      await rate('spanscore:tool_invalid_arguments:ratio_rate15m{service="ai-sdk-health-agent"}'),
    ).toEqual({ convert_currency: 0.5 });
    for (const panel of [
      'Tool error rate (calls that ran and failed)',
      'Invalid arguments and tools never offered',
      'Tool calls by outcome (window)',
      'Repeated calls (loops)',
    ]) {
      const { expr } = dashboardQueries.find(q => q.panel === panel)!;
      expect(
        (await query(expr.replaceAll('[1m]', '[5m]'))).data.result.length,
        panel,
      ).toBeGreaterThan(0);
    }
  });

  it('keeps trace-id exemplars on the score histogram', async () => {
    const now = Date.now() / 1000;
    const response = await fetch(
      `${api}/api/v1/query_exemplars?${new URLSearchParams({
        query: 'gen_ai_evaluation_score_bucket',
        start: String(now - 300),
        end: String(now + 60),
      }).toString()}`,
    );
    const body = (await response.json()) as {
      data: Array<{ exemplars: Array<{ labels: { trace_id: string } }> }>;
    };
    const traceIds = new Set(body.data.flatMap(s => s.exemplars.map(e => e.labels.trace_id)));
    expect(traceIds.size).toBeGreaterThan(0);
    for (const id of traceIds) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

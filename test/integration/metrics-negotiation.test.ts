import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import { createServiceMetrics } from '../../src/server/service-metrics.js';

const PROMTOOL = process.env.PROMTOOL_PATH ?? '/usr/bin/promtool';
const OPENMETRICS = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';
/** What Prometheus 2 sends by default: OpenMetrics first, the text format as a fallback. */
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

/** What promtool's lint says of prom-client's default metrics (`collectDefaultMetrics`). */
const PROM_CLIENT_LINT = ['handles', 'requests', 'resources'].map(
  what => `nodejs_active_${what}_total non-counter metrics should not have "_total" suffix`,
);

/** `promtool check metrics` on `text` (stdin): its exit code and what it printed. */
function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  if (!existsSync(PROMTOOL))
    throw new Error(`${PROMTOOL} not found: apt-get install prometheus (it has promtool too)`);
  return new Promise(resolve => {
    const child = execFile(PROMTOOL, ['check', 'metrics'], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
    child.stdin!.end(text);
  });
}

describe('/metrics answers the format the scraper asks', () => {
  const metrics = createServiceMetrics();
  const app = createOtlpHttpReceiver({
    sink: { accept: () => Promise.resolve() },
    metrics,
  });
  beforeAll(async () => {
    await app.ready();
    metrics.tracesScored.inc(3);
    metrics.evaluations.inc({
      scorer: 'tool_errors',
      target: 'rule:x',
      label: 'fail',
      service: 's',
    });
    metrics.evaluationScore.observe({
      labels: { scorer: 'tool_errors', target: 'rule:x', service: 's' },
      value: 0.25,
      // (the exemplar's label is not one of the series': prom-client's types say otherwise)
      exemplarLabels: { trace_id: 'ab'.repeat(16) } as never,
    });
  });
  afterAll(() => app.close());

  const scrape = async (accept?: string) => {
    const response = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: accept === undefined ? {} : { accept },
    });
    expect(response.statusCode).toBe(200);
    return { type: response.headers['content-type'], body: response.body };
  };

  it('OpenMetrics, with exemplars, to a client that asks for it (Prometheus by default)', async () => {
    for (const accept of [PROMETHEUS_ACCEPT, 'application/openmetrics-text']) {
      const { type, body } = await scrape(accept);
      expect(type).toBe(OPENMETRICS);
      expect(body).toMatch(/# EOF\n$/);
      expect(body).toMatch(/^spanscore_traces_scored_total 3$/m);
      expect(body).toMatch(
        /gen_ai_evaluation_score_bucket\{le="0.3",.*\} 1 # \{trace_id="(ab){16}"\}/,
      );
    }
  });

  it('the Prometheus text format, which promtool reads, to a client asking text/plain, anything or nothing', async () => {
    // After an OpenMetrics scrape (prom-client then names counters without _total): the same
    // series either way.
    await scrape('application/openmetrics-text');
    for (const accept of [
      'text/plain; version=0.0.4',
      '*/*',
      undefined,
      'application/openmetrics-text; q=0, text/plain',
    ]) {
      const { type, body } = await scrape(accept);
      expect(type, String(accept)).toBe(PROMETHEUS_TEXT);
      expect(body).not.toContain('# EOF');
      expect(body).not.toMatch(/ # \{trace_id=/);
      expect(body).toMatch(/^# TYPE spanscore_traces_scored_total counter$/m);
      expect(body).toMatch(/^spanscore_traces_scored_total 3$/m);
      expect(body).toMatch(
        /^spanscore_evaluations_total\{scorer="tool_errors",target="rule:x",label="fail",service="s"\} 1$/m,
      );
      expect(body).toMatch(/^gen_ai_evaluation_score_bucket\{le="0.3",.*\} 1$/m);
      // Parsed whole (exit 1 and "error while linting" on a parse error); its lint findings
      // (exit 3) only prom-client's default gauges named *_total, which are not ours to rename.
      const check = await promtoolCheck(body);
      expect(check.output).not.toContain('error');
      expect(check.output.trim().split('\n')).toEqual(PROM_CLIENT_LINT);
    }
  });
});

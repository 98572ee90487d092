import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import type { Summary } from '../../src/results/results-query.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startService } from '../../src/server/start-service.js';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { waitFor } from '../helpers/redis.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Results per agent, from a real multi-agent capture (OpenAI Agents JS handing a refund from
 * triage to billing, captures/openai-agents-handoffs.ts) scored live by a suite that expects the
 * refund from triage: the run record keeps each call's agent and the route, the trace view groups
 * the calls by agent under the route, the summary and the metrics break results down by agent
 * and blame billing, and "Copy as test case" records the agents.
 */
describe('results per agent', () => {
  it('shows the route and the calls by agent, and breaks the summary and metrics down by agent', async () => {
    const dir = ROOT;
    const config = await loadConfig({
      env: {},
      overrides: {
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 200,
        'export.enabled': false,
        'export.logResults': false,
        suites: [join(dir, 'test/fixtures/suites/agent-team-refund-by-triage.yaml')],
      },
    });
    const service = await startService(
      config,
      { receiver: true, workers: true },
      { log: () => {} },
    );
    try {
      const origin = new URL(service.url!).origin;
      const body = readFileSync(
        join(dir, 'test/fixtures/otlp/captured-openai-agents-0.20.0-handoffs.otlp.json'),
      );
      const posted = await fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(posted.status).toBe(200);
      let summary: Summary | undefined;
      await waitFor(async () => {
        summary = (await (await fetch(`${origin}/api/v1/summary`)).json()) as Summary;
        return summary.total.count === 4;
      }, 'both runs scored');
      // handoff-to-billing: trajectory fails (the refund expected from triage), routing passes;
      // stays-with-triage passes both.
      expect(summary!.byAgent).toEqual([
        expect.objectContaining({ agent: 'billing', count: 2, pass: 1, fail: 1, blamed: 1 }),
        expect.objectContaining({ agent: 'triage', count: 4, pass: 3, fail: 1, blamed: 0 }),
      ]);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      expect(metrics).toContain(
        'spanscore_agent_failures_total{scorer="tool_trajectory",agent="billing"} 1',
      );
      expect(metrics).toMatch(
        /spanscore_agent_evaluations_total\{scorer="agent_routing",agent="triage",label="pass"\} 2/,
      );

      const results = (await (
        await fetch(`${origin}/api/v1/results?testCase=handoff-to-billing&scorer=tool_trajectory`)
      ).json()) as {
        results: Array<{ traceId: string; agents: string[]; failingAgents: string[] }>;
      };
      const [failing] = results.results;
      expect([failing!.agents, failing!.failingAgents]).toEqual([
        ['triage', 'billing'],
        ['billing'],
      ]);
      const run = (await (
        await fetch(`${origin}/api/v1/traces/${failing!.traceId}`)
      ).json()) as RunRecord;
      expect(run.agents).toEqual([
        { agent: 'triage', handoff: null },
        { agent: 'billing', handoff: 'transfer_to_billing' },
      ]);
      expect(run.toolCalls.map(c => [c.name, c.agent])).toEqual([
        ['lookup_order', 'billing'],
        ['issue_refund', 'billing'],
      ]);
      const testCase = parse(
        await (await fetch(`${origin}/api/v1/traces/${failing!.traceId}/test-case`)).text(),
      ) as Array<{ expectedCalls: Array<{ agent?: string }>; expectedAgents?: string[] }>;
      expect(testCase[0]!.expectedAgents).toEqual(['triage', 'billing']);
      expect(testCase[0]!.expectedCalls.map(c => c.agent)).toEqual(['billing', 'billing']);

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`${origin}/ui/#trace=${failing!.traceId}`);
      const dialog = page.locator('#trace');
      await expect
        .poll(() => dialog.locator('.route').textContent())
        .toBe('Route: triage → billing (transfer_to_billing)');
      expect(await dialog.locator('table.calls tr.agent-group th').allTextContents()).toEqual([
        'billing',
      ]);
      expect(await dialog.locator('table.calls tbody th[scope="row"]').allTextContents()).toEqual([
        'lookup_order',
        'issue_refund',
      ]);
      await screenshot(page, 'results-page-agents');
      await page.close();
    } finally {
      await service.close();
    }
  }, 60_000);
});

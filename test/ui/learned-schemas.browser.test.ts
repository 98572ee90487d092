import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { serveDefaults } from '../helpers/health-traffic.js';
import { otlpRequest } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';
import { serviceTraceSpans } from '../helpers/service-trace.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

const airport = {
  type: 'object',
  properties: { from: { type: 'string', pattern: '^[A-Z]{3}$' } },
  required: ['from'],
};

/**
 * A schema learned from one trace, on the page: the Tools view says how many checks rested on a
 * learned schema and which trace it was seen in; the trace view of a call checked with it says so
 * under its problems.
 */
describe('learned schemas on the results page', () => {
  it('shows where the schema of a check came from, in the Tools view and the trace view', async () => {
    const served = await serveDefaults({ 'queue.driver': 'memory' });
    try {
      const send = async (options: Parameters<typeof serviceTraceSpans>[0]) => {
        const { traceId, spans } = serviceTraceSpans(options);
        await fetch(`${served.origin}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(otlpRequest(spans)),
        });
        await waitFor(async () => {
          const r = await fetch(`${served.origin}/api/v1/traces/${traceId}`);
          return r.ok && ((await r.json()) as { state: string }).state === 'scored';
        }, 'scored');
        return traceId;
      };
      const first = await send({
        service: 'travel',
        offered: [{ name: 'search_flights', parameters: airport }],
        calls: [{ name: 'search_flights', args: { from: 'BER' } }],
      });
      await send({
        service: 'travel',
        calls: [{ name: 'search_flights', args: { from: 'Berlin' } }],
      });

      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', e => errors.push(e.message));
      await page.goto(`${served.origin}/ui/#tools`);
      const cell = page
        .locator('#tools tbody tr', { hasText: 'search_flights' })
        .locator('td')
        .nth(4);
      await expect.poll(() => cell.textContent(), { timeout: 15_000 }).toContain('1 of 2 (50.0%)');
      expect(await cell.locator('.schema-source').textContent()).toMatch(
        new RegExp(`^1 against a learned schema · schema seen in trace ${first.slice(0, 8)}…, `),
      );
      expect(await cell.getAttribute('title')).toMatch(
        new RegExp(`^schema seen in trace ${first.slice(0, 8)}…, (just now|\\d+ s ago)$`),
      );
      await screenshot(page, 'results-page-tools-learned-schema');

      await page.locator('#tools tbody th button', { hasText: 'search_flights' }).click();
      const listed = page.locator('#trace-list tbody tr');
      await expect.poll(() => listed.count()).toBe(2);
      await listed.first().locator('td.trace button').click();
      const dialog = page.locator('#trace');
      await expect
        .poll(() => dialog.locator('table.calls .schema-source').textContent())
        .toMatch(new RegExp(`^against the schema seen in trace ${first.slice(0, 8)}…`));
      expect(await dialog.locator('table.calls ul.problems li').allTextContents()).toEqual([
        '/from: must match pattern "^[A-Z]{3}$"',
      ]);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

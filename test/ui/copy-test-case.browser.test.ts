import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { waitFor } from '../helpers/redis.js';
import { sendRun, serveWithKnownTraffic } from '../helpers/results-traffic.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/**
 * A good production trace becomes a regression case in one step: the trace view's "Copy as test
 * case" puts its test case on the clipboard as YAML (by `suite record`'s rules: volatile arguments
 * left out and named), and `GET /api/v1/traces/<id>/test-case` returns the same.
 */
describe('Copy as test case', () => {
  it('puts the trace’s test case on the clipboard, and the API returns it', async () => {
    const served = await serveWithKnownTraffic();
    try {
      const traceId = await sendRun(`${served.origin}/v1/traces`, {
        name: 'good-booking',
        testCaseId: 'book-trip',
        tools: ['search_flights', 'book_flight'],
        toolArgs: [
          JSON.stringify({ from: 'LON', to: 'NYC', requestId: 'r-81' }),
          JSON.stringify({ flight: 'LON-NYC-2', at: '2026-11-25T10:00:00Z' }),
        ],
      });
      await waitFor(async () => {
        const r = await fetch(`${served.origin}/api/v1/traces/${traceId}`);
        return r.ok && ((await r.json()) as { state: string }).state === 'scored';
      }, 'the trace scored');

      const api = await fetch(`${served.origin}/api/v1/traces/${traceId}/test-case`);
      expect(api.status).toBe(200);
      expect(api.headers.get('content-type')).toContain('application/yaml');
      const text = await api.text();
      expect(text).toContain(`# recorded from trace ${traceId}`);
      expect(text).toContain('# left out as volatile: search_flights.requestId, book_flight.at');
      expect(parse(text)).toEqual([
        {
          id: 'book-trip',
          expectedTools: ['search_flights', 'book_flight'],
          expectedCalls: [
            { name: 'search_flights', args: { from: 'LON', to: 'NYC' } },
            { name: 'book_flight', args: { flight: 'LON-NYC-2' } },
          ],
        },
      ]);
      expect(
        (await fetch(`${served.origin}/api/v1/traces/${'f'.repeat(32)}/test-case`)).status,
      ).toBe(404);
      const pending = await fetch(`${served.origin}/api/v1/traces/${served.ids.pending}/test-case`);
      expect(pending.status).toBe(404);
      expect(((await pending.json()) as { error: string }).error).toContain('only a scored trace');

      const context = await browser.newContext({
        permissions: ['clipboard-read', 'clipboard-write'],
        viewport: { width: 1400, height: 1000 },
      });
      const page = await context.newPage();
      await page.goto(`${served.origin}/ui/#trace=${traceId}`);
      const dialog = page.locator('#trace');
      const button = dialog.getByRole('button', { name: 'Copy as test case' });
      await button.click();
      await expect.poll(() => dialog.locator('pre.test-case').textContent()).toBe(text);
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(text);
      expect(await dialog.locator('.copy-test-case [role="status"]').textContent()).toBe(
        'Copied: paste it under testCases in your suite.',
      );
      await screenshot(page, 'results-page-copy-test-case');
      await context.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

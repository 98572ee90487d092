import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { serveDefaults } from '../helpers/health-traffic.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/**
 * What a newcomer sees: `serve` with no configuration, its page first empty (and saying how to
 * connect an agent), then fed a real capture over OTLP (the AI SDK 7's five tool-health
 * scenarios): the Tools view per tool, a tool's failing traces, and a run record with each call's
 * outcome and what was wrong with its arguments.
 */
describe('tool health on the results page', () => {
  it('shows each tool, opens its failing traces, and the calls of a run', async () => {
    const served = await serveDefaults({ 'queue.driver': 'memory' });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', e => errors.push(e.message));
      await page.goto(`${served.origin}/ui/`);
      const hint = page.locator('#first-contact');
      await expect.poll(() => hint.textContent()).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=');
      await screenshot(page, 'results-page-empty');

      await served.send();
      await expect
        .poll(() => page.locator('#totals dt:text-is("Results") + dd').textContent(), {
          timeout: 15_000,
        })
        .toBe('15');
      expect(await hint.isVisible()).toBe(false);
      expect(await page.locator('#targets tbody th').allTextContents()).toEqual([
        'rule:tool-health',
        'rule:tool-health',
        'rule:tool-health',
      ]);

      await page.locator('nav a', { hasText: 'Tools' }).click();
      const rows = () =>
        page
          .locator('#tools tbody tr')
          .evaluateAll(trs =>
            trs.map(tr => [...tr.children].slice(0, 8).map(td => td.textContent?.trim() ?? '')),
          );
      await expect.poll(async () => (await rows()).length).toBe(3);
      expect(await rows()).toEqual([
        ['get_weather', 'ai-sdk-health-agent', '5', '1 (20.0%)', '0', '0 of 5 (0.0%)', '0', '3'],
        [
          'convert_currency',
          'ai-sdk-health-agent',
          '2',
          '0 (0.0%)',
          '1',
          '1 of 2 (50.0%)',
          '0',
          '0',
        ],
        ['delete_booking', 'ai-sdk-health-agent', '1', '0 (0.0%)', '1', '–', '1', '0'],
      ]);
      expect(await page.locator('#tools td.trend canvas').count()).toBe(3);
      await screenshot(page, 'results-page-tools');

      // A tool opens the traces where it failed.
      await page.locator('#tools tbody th button', { hasText: 'get_weather' }).click();
      await expect.poll(() => page.url()).toContain('#traces');
      const listed = page.locator('#trace-list tbody tr');
      await expect.poll(() => listed.count()).toBe(1);
      expect(await listed.first().textContent()).toContain('1 failed');
      await screenshot(page, 'results-page-traces');

      await listed.first().locator('td.trace button').click();
      const dialog = page.locator('#trace');
      await expect.poll(() => dialog.locator('table.calls tbody tr').count()).toBe(1);
      const call = await dialog
        .locator('table.calls tbody tr')
        .first()
        .evaluate(tr => [...tr.children].map(td => td.textContent));
      expect([call[1], call[3], call[6]]).toEqual([
        'get_weather',
        'error: no weather station in Atlantis',
        'valid',
      ]);
      await page.keyboard.press('Escape');

      // The traces of a call refused for its arguments: the problems, one per line.
      const shownBefore = await listed.first().textContent();
      await page.selectOption('#trace-search select[name="outcome"]', 'refused');
      await page.fill('#trace-search input[name="tool"]', 'convert_currency');
      await page.click('#trace-search button[type="submit"]');
      // The list before the search held one trace too (get_weather's): wait for the new one, or
      // the click below opens the old one, whose call has no problems (CI, once).
      await expect.poll(() => listed.first().textContent()).not.toBe(shownBefore);
      await expect.poll(() => listed.count()).toBe(1);
      await listed.first().locator('td.trace button').click();
      await expect
        .poll(() => dialog.locator('table.calls ul.problems li').allTextContents())
        .toEqual(['/amount: must be number', "/: must have required property 'to'"]);
      await screenshot(page, 'results-page-tool-health-run');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { sendFailingTrace } from '../helpers/failing-calls.js';
import { serveDefaults } from '../helpers/health-traffic.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** Error texts are untrusted: each tries to set `window.__pwned` if it ran as markup. */
const MARKUP = '<img src=x onerror="window.__pwned=1"> failed for <b>order 7</b>';
const NEW_IN_1_1 = '<script>window.__pwned=2</script> broke on 12 items';

/**
 * `serve` (memory driver, tool health on, a trace UI configured) fed the AI SDK 7's tool-health
 * capture and traces of two versions whose `lookup` tool fails with markup in its errors: the
 * Tools view opens a tool's failure signatures (signature, calls, first and last seen, versions,
 * example traces that open the run record and link to the trace UI), the Compare view names the
 * signature new in 1.1, and the error texts show as text, never as markup.
 */
describe('failure signatures on the results page', () => {
  it('a tool opens its failure signatures; compare names the new one; text stays text', async () => {
    const served = await serveDefaults({
      'queue.driver': 'memory',
      'results.traceUrlTemplate': 'http://127.0.0.1:9/trace/{traceId}',
    });
    try {
      await served.send();
      const v1 = [
        await sendFailingTrace(
          served.origin,
          [{ tool: 'lookup', error: MARKUP }, { tool: 'ping' }],
          {
            version: '1.0',
          },
        ),
        await sendFailingTrace(
          served.origin,
          [{ tool: 'lookup', error: MARKUP.replace('7', '8') }],
          {
            version: '1.0',
          },
        ),
      ];
      const v2 = await sendFailingTrace(
        served.origin,
        [
          { tool: 'lookup', error: MARKUP },
          { tool: 'lookup', error: NEW_IN_1_1 },
        ],
        { version: '1.1' },
      );

      const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
      const problems: string[] = [];
      page.on('pageerror', e => problems.push(e.message));
      await page.goto(`${served.origin}/ui/#tools`);
      const lookupRow = page.locator('#tools tbody tr', {
        has: page.locator('th', { hasText: /^lookup$/ }),
      });
      await expect.poll(() => lookupRow.count(), { timeout: 15_000 }).toBe(1);
      // A tool that never failed has nothing to open.
      const opens = await page
        .locator('#tools tbody tr')
        .evaluateAll(trs =>
          Object.fromEntries(
            trs.map(tr => [tr.firstElementChild?.textContent, tr.lastElementChild?.textContent]),
          ),
        );
      expect(opens).toEqual({
        get_weather: 'Signatures',
        convert_currency: 'Signatures',
        delete_booking: 'Signatures',
        lookup: 'Signatures',
        ping: '–',
      });

      await lookupRow.locator('button', { hasText: 'Signatures' }).click();
      const section = page.locator('#tool-failures');
      const rows = section.locator('#failure-signatures tbody tr');
      await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
      expect(await page.locator('#tool-failures-title').textContent()).toBe(
        'Failure signatures: lookup',
      );
      const cells = await rows.evaluateAll(trs =>
        trs.map(tr => [...tr.children].map(td => td.textContent ?? '')),
      );
      expect(cells.map(c => [c[0], c[1], c[2], c[5]])).toEqual([
        ['<img src=x onerror=<str>> failed for <b>order <n></b>', '3', 'failed', '1.1, 1.0'],
        ['<script>window.__pwned=<n></script> broke on <n> items', '1', 'failed', '1.1'],
      ]);
      for (const c of cells) {
        expect(c[3]).not.toBe('–');
        expect(c[4]).not.toBe('–');
      }
      // Markup from traces is text: no element was made of it, and nothing ran.
      expect(await section.locator('img, script, b').count()).toBe(0);
      expect(
        await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned),
      ).toBeUndefined();

      // Example traces, newest first: each opens its run record and links to the trace UI.
      const examples = rows.first().locator('td.trace button');
      expect(await examples.evaluateAll(bs => bs.map(b => b.getAttribute('title')))).toEqual([
        v2,
        v1[1],
        v1[0],
      ]);
      expect(await rows.first().locator('td.trace a').first().getAttribute('href')).toBe(
        `http://127.0.0.1:9/trace/${v2}`,
      );
      await screenshot(page, 'results-page-failure-signatures');
      await examples.first().click();
      const dialog = page.locator('#trace');
      await expect
        .poll(() => dialog.locator('table.calls tbody tr').count(), { timeout: 10_000 })
        .toBe(2);
      expect(await page.locator('#trace-title').textContent()).toBe(`Trace ${v2}`);
      await page.keyboard.press('Escape');

      // The live refresh keeps the signatures open; Close closes them.
      await page.waitForTimeout(5500);
      expect(await rows.count()).toBe(2);
      await page.locator('#tool-failures-close').click();
      expect(await section.isVisible()).toBe(false);

      // Compare 1.0 with 1.1: the signature 1.1 brought.
      await page.locator('nav a', { hasText: 'Overview' }).click();
      const form = page.locator('#compare');
      await form.locator('input[name="baseline"]').fill('1.0');
      await form.locator('input[name="candidate"]').fill('1.1');
      await form.locator('button[type="submit"]').click();
      const fresh = page.locator('#new-signatures tbody tr');
      await expect.poll(() => fresh.count(), { timeout: 10_000 }).toBe(1);
      expect(
        await fresh.first().evaluate(tr => [...tr.children].slice(0, 5).map(td => td.textContent)),
      ).toEqual([
        'lookup',
        'shop-agent',
        '<script>window.__pwned=<n></script> broke on <n> items',
        '1',
        'yes',
      ]);
      expect(await page.locator('#new-signatures script').count()).toBe(0);
      expect(await fresh.first().locator('td.trace button').getAttribute('title')).toBe(v2);
      await page.locator('#new-signatures').scrollIntoViewIfNeeded();
      await screenshot(page, 'results-page-new-signatures');
      expect(
        await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned),
      ).toBeUndefined();
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 90_000);
});

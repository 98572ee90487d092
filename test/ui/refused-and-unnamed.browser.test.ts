import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { serveDefaults } from '../helpers/health-traffic.js';
import { waitFor } from '../helpers/redis.js';
import { runRequest } from '../helpers/results-traffic.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** A page that records its script errors, and any dialog a script would open. */
async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', e => errors.push(e.message));
  page.on('dialog', d => {
    errors.push(`a dialog opened: ${d.message()}`);
    void d.dismiss();
  });
  return { page, errors };
}

const rows = (page: Page, id: string) =>
  page
    .locator(`#${id} tbody tr`)
    .evaluateAll(trs => trs.map(tr => [...tr.children].map(td => td.textContent?.trim() ?? '')));

describe('the results page says what the receiver refused', () => {
  it('shows an export sent to the doubled path, with the fix the receiver answered, as text', async () => {
    const served = await serveDefaults();
    try {
      const body = JSON.stringify(runRequest({ name: 'r', tools: ['get_weather'] }).body);
      const doubled = await fetch(`${served.origin}/v1/traces/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(doubled.status).toBe(404);
      const fix = ((await doubled.json()) as { message: string }).message;
      // A content type full of markup: the answer quotes it, the page must show it as text.
      const markup = await fetch(`${served.origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'text/<img src=x onerror=alert(1)><b>bold</b>' },
        body: 'x',
      });
      expect(markup.status).toBe(415);

      const { page, errors } = await openPage();
      await page.goto(`${served.origin}/ui/`);
      const card = (name: string) => page.locator(`#totals dt:text-is("${name}") + dd`);
      await expect.poll(() => card('Requests refused').textContent()).toBe('2');
      expect(await page.locator('#refused-section').isVisible()).toBe(true);
      const refused = await rows(page, 'refused');
      expect(refused.map(r => [r[0], r[1]])).toEqual([
        ['A content type or encoding other than protobuf or JSON, gzip or none (415)', '1'],
        ['Sent to a path that is no OTLP endpoint (404)', '1'],
      ]);
      expect(refused[1]![3]).toBe(fix);
      expect(refused[1]![3]).toContain(
        'set OTEL_EXPORTER_OTLP_ENDPOINT to the base URL only (http://host:4318, which the exporter completes with /v1/traces)',
      );
      expect(refused[0]![3]).toContain('text/<img src=x onerror=alert(1)><b>bold</b>');
      expect(await page.locator('#refused img, #refused b').count()).toBe(0);
      // "No traces yet" is not the whole story: the first-contact note points at the refusals.
      expect(await page.locator('#first-contact').textContent()).toContain(
        '2 request(s) to the receiver were refused',
      );
      await screenshot(page, 'results-page-refused');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);

  it('shows nothing refused when nothing was: no section, and the first-contact hint', async () => {
    const served = await serveDefaults();
    try {
      const { page, errors } = await openPage();
      await page.goto(`${served.origin}/ui/`);
      const card = (name: string) => page.locator(`#totals dt:text-is("${name}") + dd`);
      await expect.poll(() => card('Requests refused').textContent()).toBe('0');
      expect(await page.locator('#refused-section').isVisible()).toBe(false);
      expect(await page.locator('#first-contact').textContent()).toContain('No traces yet');
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('the results page names a service that set no service.name one way', () => {
  it('lists unknown_service once in the filter, and the trace list says how to name it', async () => {
    const served = await serveDefaults();
    try {
      const unnamed = runRequest({ name: 'unnamed', tools: ['get_weather'] });
      const request = unnamed.body as { resourceSpans: Array<{ resource?: unknown }> };
      for (const rs of request.resourceSpans) delete rs.resource;
      const named = runRequest({ name: 'named', tools: ['get_weather'], service: 'travel-agent' });
      for (const body of [request, named.body])
        expect(
          (
            await fetch(`${served.origin}/v1/traces`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            })
          ).status,
        ).toBe(200);
      await waitFor(
        async () => {
          const r = await fetch(`${served.origin}/api/v1/summary`);
          return ((await r.json()) as { total: { count: number } }).total.count > 0;
        },
        'both traces scored',
        20_000,
      );

      const { page, errors } = await openPage();
      await page.goto(`${served.origin}/ui/`);
      const options = () =>
        page
          .locator('#filters select[name="service"] option')
          .evaluateAll(os => os.map(o => [o.getAttribute('value'), o.textContent]));
      await expect.poll(options).toEqual([
        ['', 'all'],
        ['travel-agent', 'travel-agent'],
        ['unknown_service', 'unknown_service'],
      ]);

      await page.goto(`${served.origin}/ui/#traces`);
      await expect.poll(() => page.locator('#trace-list-unnamed').isVisible()).toBe(true);
      const note = await page.locator('#trace-list-unnamed').textContent();
      expect(note).toContain('1 of these traces carries no service.name resource attribute');
      expect(note).toContain('OTEL_SERVICE_NAME=my-agent');
      const services = (await rows(page, 'trace-list')).map(r => r[2]).sort();
      expect(services).toEqual(['travel-agent', 'unknown_service']);
      await screenshot(page, 'results-page-unnamed-service');

      // The filter narrows to the unnamed service's results.
      await page.goto(`${served.origin}/ui/`);
      await expect.poll(options).toHaveLength(3);
      await page.selectOption('#filters select[name="service"]', 'unknown_service');
      await expect.poll(() => rows(page, 'targets').then(r => r.length)).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

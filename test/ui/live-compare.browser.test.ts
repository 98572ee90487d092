import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComparisonReport } from '../../src/decide/compare-summaries.js';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { waitFor } from '../helpers/redis.js';
import { sendRun, serveWithKnownTraffic, type KnownRun } from '../helpers/results-traffic.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** `count` runs of the demo suite's book-trip case by `version`, the first `good` in order. */
function runs(version: string, count: number, good: number): KnownRun[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${version}-${i}`,
    testCaseId: 'book-trip',
    tools: i < good ? ['search_flights', 'book_flight'] : ['book_flight'],
    service: 'travel-agent',
    version,
  }));
}

/**
 * `serve` (memory driver) receives traces of two versions of one service: 1.2 books a trip right
 * 10 times of 10, 1.3 only 2 of 10 (it skips the search). The comparison by `service.version`
 * must call book-trip regressed for both scorers, in the API and in the page's Compare view.
 */
describe('comparing two versions of a service, live', () => {
  it('finds the regression in /api/v1/compare and shows it in the Compare view', async () => {
    const served = await serveWithKnownTraffic();
    try {
      const url = `${served.origin}/v1/traces`;
      for (const run of [...runs('1.2.0', 10, 10), ...runs('1.3.0', 10, 2)])
        await sendRun(url, run);
      const results = async () =>
        (
          (await (
            await fetch(`${served.origin}/api/v1/results?serviceVersion=1.3.0&limit=100`)
          ).json()) as {
            results: unknown[];
          }
        ).results.length;
      await waitFor(
        async () => (await results()) === 20,
        'the 1.3.0 traces scored (2 scorers × 10)',
      );

      const response = await fetch(
        `${served.origin}/api/v1/compare?by=version&baseline=1.2.0&candidate=1.3.0&service=travel-agent&window=1h`,
      );
      expect(response.status).toBe(200);
      const report = (await response.json()) as ComparisonReport & {
        by: string;
        truncated: boolean;
      };
      expect(report).toMatchObject({ by: 'version', truncated: false });
      const book = report.comparisons.filter(c => c.testCaseId === 'book-trip');
      expect(book.map(c => [c.scorer, c.verdict])).toEqual([
        ['tool_call_accuracy', 'regressed'],
        ['tool_correctness', 'regressed'],
      ]);
      expect(book[1]).toMatchObject({
        baseline: { runs: 10, passes: 10 },
        current: { runs: 10, passes: 2 },
        direction: 'down',
        significant: true,
      });
      // Versions of other traces (the known traffic has none) are in neither side.
      expect(report.comparisons.every(c => c.testCaseId === 'book-trip')).toBe(true);

      // Bad queries name what is wrong.
      const bad = await fetch(`${served.origin}/api/v1/compare?by=version&baseline=1.2.0`);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toContain(
        'query parameter "candidate": required with by=version',
      );

      // The version is not a metric label: /metrics stays bounded.
      const metrics = await (await fetch(`${served.origin}/metrics`)).text();
      expect(metrics).not.toContain('1.3.0');

      const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
      const problems: string[] = [];
      page.on('pageerror', e => problems.push(e.message));
      await page.goto(`${served.origin}/ui/`);
      const form = page.locator('#compare');
      await expect.poll(() => page.locator('#versions option').count()).toBe(2);
      await form.locator('select[name="service"]').selectOption('travel-agent');
      await form.locator('input[name="baseline"]').fill('1.2.0');
      await form.locator('input[name="candidate"]').fill('1.3.0');
      await form.locator('button[type="submit"]').click();
      const regressed = page.locator('#comparison tbody tr[data-verdict="regressed"]');
      await expect.poll(() => regressed.count()).toBe(2);
      expect(await regressed.first().locator('th').textContent()).toBe('book-trip');
      expect(await regressed.nth(1).locator('td').allTextContents()).toEqual([
        'tool_correctness',
        '100% (10/10) [0.72–1.00]',
        '20% (2/10) [0.06–0.51]',
        '-80',
        '0.00036',
        'regressed',
      ]);
      expect(await page.locator('#compare-summary').textContent()).toMatch(
        /^2 compared: 2 regressed, 0 improved/,
      );
      await page.locator('#compare-title').scrollIntoViewIfNeeded();
      await screenshot(page, 'results-page-compare');
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

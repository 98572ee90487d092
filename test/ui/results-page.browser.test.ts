import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { KNOWN_RUNS, runRequest, serveWithKnownTraffic } from '../helpers/results-traffic.js';
import { CLI_ENTRY } from '../helpers/cli-entry.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

describe('the results page in Chromium, on a serve fed known traces', () => {
  it('shows pass rates, tables, failures with tool diffs, and run records; it refreshes live', async () => {
    const served = await serveWithKnownTraffic({
      'results.traceUrlTemplate': 'http://localhost:16686/trace/{traceId}',
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', e => errors.push(e.message));
      const external: string[] = [];
      page.on('request', r => {
        if (!r.url().startsWith(served.origin)) external.push(r.url());
      });
      await page.goto(`${served.origin}/ui/`);
      const card = (name: string) => page.locator(`#totals dt:text-is("${name}") + dd`);
      await expect.poll(() => card('Results').textContent()).toBe('10');
      expect(await card('Pass rate').textContent()).toBe('50.0%');
      expect(await card('Failing results').textContent()).toBe('5');
      expect(await card('Traces not scored').textContent()).toBe('2');

      const rows = (id: string) =>
        page
          .locator(`#${id} tbody tr`)
          .evaluateAll(trs =>
            trs.map(tr => [...tr.children].map(td => td.textContent?.trim() ?? '')),
          );
      expect((await rows('scorers')).map(r => [r[0], r[1], r[6]])).toEqual([
        ['tool_call_accuracy', '5', '40.0%'],
        ['tool_correctness', '5', '60.0%'],
      ]);
      const targets = await rows('targets');
      expect(targets.map(r => [r[0], r[2], r[6]])).toEqual([
        ['book-trip', 'tool_call_accuracy', '50.0%'],
        ['book-trip', 'tool_correctness', '100.0%'],
        ['weather-lisbon', 'tool_call_accuracy', '50.0%'],
        ['weather-lisbon', 'tool_correctness', '50.0%'],
        ['wrong-tool', 'tool_call_accuracy', '0.0%'],
        ['wrong-tool', 'tool_correctness', '0.0%'],
      ]);
      const failures = await rows('failures');
      expect(failures).toHaveLength(5);
      const wrong = failures.find(r => r[4] === 'missing get_weather; unexpected search_web')!;
      expect(wrong.slice(1, 4)).toEqual(['wrong-tool', 'tool_correctness', '0']);
      expect(wrong[5]).toBe('+search_web−get_weather');
      expect(wrong[6]).toContain('open trace');
      expect(
        await page.locator('#failures a', { hasText: 'open trace' }).first().getAttribute('href'),
      ).toMatch(/^http:\/\/localhost:16686\/trace\/[0-9a-f]{32}$/);
      expect((await rows('not-scored')).map(r => r[1])).toEqual(['1', '1']);
      expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
      await screenshot(page, 'results-page');

      // A filter narrows the summary.
      await page.selectOption('select[name="scorer"]', 'tool_correctness');
      await expect.poll(() => card('Pass rate').textContent()).toBe('60.0%');
      await page.selectOption('select[name="scorer"]', '');

      // The run record of a trace that matched no test case, found by the keyboard.
      await page.locator('input[name="traceId"]').focus();
      await page.keyboard.type(served.ids['unknown-case']!);
      await page.keyboard.press('Enter');
      const dialog = page.locator('#trace');
      await expect.poll(() => dialog.locator('.badge').first().textContent()).toBe('not scored');
      expect(await dialog.textContent()).toContain('test case "no-such-case" is in no suite');
      await screenshot(page, 'results-page-run-record');
      await page.keyboard.press('Escape');
      expect(await dialog.isVisible()).toBe(false);

      // Live: a new trace shows up without a reload.
      const extra = runRequest({ name: 'late', testCaseId: 'wrong-tool', tools: ['get_weather'] });
      await fetch(`${served.origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(extra.body),
      });
      await expect.poll(() => card('Results').textContent(), { timeout: 15_000 }).toBe('12');
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('spanscore score --format html in Chromium', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spanscore-report-'));
    for (const r of KNOWN_RUNS)
      await writeFile(join(dir, `${r.name}.json`), JSON.stringify(runRequest(r).body));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is one self-contained file with the matrix, pass rates, failures and a working filter', async () => {
    const report = join(dir, 'report.html');
    const code = await run(
      process.execPath,
      [
        CLI_ENTRY,
        'score',
        '--suite',
        join(ROOT, 'config/suites/demo.yaml'),
        dir,
        '--output',
        report,
      ],
      { cwd: ROOT },
    ).then(
      () => 0,
      (e: { code?: number }) => e.code,
    );
    expect(code).toBe(1); // some results fail
    const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
    const requests: string[] = [];
    page.on('request', r => requests.push(r.url()));
    await page.goto(`file://${report}`);
    expect(requests).toEqual([`file://${report}`]);
    expect(await page.locator('#total-results').textContent()).toBe('12');
    expect(await page.locator('#total-pass-rate').textContent()).toBe('41.7%');
    const cells = await page
      .locator('#matrix tbody tr')
      .evaluateAll(trs => trs.map(tr => [...tr.children].map(td => td.textContent?.trim() ?? '')));
    expect(cells).toEqual([
      ['weather-lisbon', 'fail (1/2 pass)', 'fail (1/2 pass)'],
      ['book-trip', 'fail (1/3 pass)', 'fail (2/3 pass)'],
      ['wrong-tool', 'fail 0.00', 'fail 0.00'],
    ]);
    const scorers = await page
      .locator('#scorers tbody tr')
      .evaluateAll(trs =>
        trs.map(tr => [tr.children[0]!.textContent, tr.children[5]!.textContent]),
      );
    expect(scorers).toEqual([
      ['tool_call_accuracy', '33.3%'],
      ['tool_correctness', '50.0%'],
    ]);
    expect(await page.locator('#failures tbody tr').count()).toBe(7);
    expect(await page.locator('#failures').textContent()).toContain(
      'missing get_weather; unexpected search_web',
    );
    await screenshot(page, 'html-report');
    await page.locator('#filter').fill('wrong-tool');
    expect(await page.locator('#failures tbody tr:visible').count()).toBe(2);
    expect(await page.locator('#matrix tbody tr:visible').count()).toBe(1);
    await page.close();
  }, 60_000);
});

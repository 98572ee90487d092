import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.js';
import {
  runRequest,
  sendRun,
  serveWithKnownTraffic,
  type KnownRun,
} from '../helpers/results-traffic.js';
import { waitFor } from '../helpers/redis.js';
import { switchableExporter } from '../helpers/switchable-exporter.js';
import { CLI_ENTRY } from '../helpers/cli-entry.js';

const exec = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * Traces are untrusted input: a span may name its tool, service or agent in HTML and carry script
 * in its arguments. Each of these strings must reach the page, the trace view and the HTML report
 * as the very text it is, and none may run: each tries to set `window.__pwned`.
 */
const TOOL = '<img src=x onerror="window.__pwned=1">';
const SERVICE = '<script>window.__pwned=2</script>svc';
const AGENT = '<b onmouseover="window.__pwned=3">agent</b>';
const ARGS = '{"q":"</code><svg onload=window.__pwned=4>"}';
const RESULT = '"<iframe srcdoc=\\"<script>parent.__pwned=5</script>\\">"';
const VERSION = '<img src=y onerror="window.__pwned=6">1.0';
const EVIL: KnownRun = {
  name: 'evil',
  testCaseId: 'wrong-tool',
  tools: [TOOL],
  service: SERVICE,
  agentName: AGENT,
  toolArgs: [ARGS],
  toolResults: [RESULT],
  version: VERSION,
};

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/** A page that records every CSP violation and console error, before any of its own script runs. */
async function watchedPage(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  page.on('pageerror', e => problems.push(`pageerror: ${e.message}`));
  page.on('console', m => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text()))
      problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', e =>
      console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));`,
  });
  return { page, problems };
}

describe('text from traces on the results page', () => {
  it('renders as text in the tables, the filters and the trace view, under a CSP that blocks nothing the page needs', async () => {
    const served = await serveWithKnownTraffic();
    try {
      const traceId = await sendRun(`${served.origin}/v1/traces`, EVIL);
      await waitFor(async () => {
        const r = await fetch(`${served.origin}/api/v1/traces/${traceId}`);
        return r.ok && ((await r.json()) as { state: string }).state === 'scored';
      }, 'the evil trace scored');
      const { page, problems } = await watchedPage();
      const response = await page.goto(`${served.origin}/ui/`);
      expect(response!.headers()['content-security-policy']).toContain("default-src 'self'");
      const failures = page.locator('#failures');
      await expect.poll(() => failures.textContent()).toContain(TOOL);
      // The diff shows the extra tool by its literal name; the service filter lists the service.
      expect(await failures.locator('.diff .extra').allTextContents()).toContain(`+${TOOL}`);
      expect(await page.locator('select[name="service"] option').allTextContents()).toContain(
        SERVICE,
      );

      // The compare view offers the version and the service as the text they are, and compares.
      const compare = page.locator('#compare');
      await expect
        .poll(() =>
          page.locator('#versions option').evaluateAll(os => os.map(o => o.getAttribute('value'))),
        )
        .toEqual([VERSION]);
      expect(await compare.locator('select[name="service"] option').allTextContents()).toContain(
        SERVICE,
      );
      await compare.locator('input[name="baseline"]').fill(VERSION);
      await compare.locator('input[name="candidate"]').fill(VERSION);
      await compare.locator('button[type="submit"]').click();
      await expect.poll(() => page.locator('#comparison tbody tr').count()).toBe(2);
      expect(await page.locator('#comparison tbody th').allTextContents()).toEqual([
        'wrong-tool',
        'wrong-tool',
      ]);

      await page.locator('input[name="traceId"]').fill(traceId);
      await page.keyboard.press('Enter');
      const dialog = page.locator('#trace');
      await expect.poll(() => dialog.locator('table.calls').count()).toBe(1);
      const call = await dialog
        .locator('table.calls tbody tr')
        .first()
        .evaluate(tr => [...tr.children].map(td => td.textContent));
      // The result was recorded as a JSON string: it is shown as the string it holds.
      // Tool health is off for this traffic: nothing checked its arguments ('–').
      expect(call).toEqual(['1', TOOL, 'executed', 'ok', ARGS, JSON.parse(RESULT), '–']);
      expect(await dialog.textContent()).toContain(SERVICE);
      expect(await dialog.locator('dd', { hasText: 'written into the trace' }).count()).toBe(1);
      await screenshot(page, 'results-page-untrusted-trace');

      // Nothing ran, nothing was parsed as markup, and the CSP blocked nothing the page uses.
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      expect(
        await page
          .locator('main img, main svg, main iframe, #trace img, #trace svg, #trace iframe')
          .count(),
      ).toBe(0);
      expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);

  it('shows the export backlog, and a pending export in the trace view, while the backend is down', async () => {
    const backend = switchableExporter();
    const served = await serveWithKnownTraffic(
      { 'worker.backoffMs': 100, 'export.retryMaxBackoffMs': 300 },
      {},
      { exporter: backend.exporter },
    );
    try {
      const { page, problems } = await watchedPage();
      await page.goto(`${served.origin}/ui/`);
      const notice = page.locator('#export-notice');
      await expect.poll(() => notice.isVisible()).toBe(true);
      expect(await notice.textContent()).toMatch(
        /^The tracing backend is not taking evaluation spans: \d+ trace\(s\) wait for a retried export \(the oldest for \d+ s\)\. Their results are shown here already\.$/,
      );
      // The results are there all the same.
      expect(await page.locator('#totals dt:text-is("Results") + dd').textContent()).toBe('10');
      await page.locator('input[name="traceId"]').fill(served.ids['wrong-tool']!);
      await page.keyboard.press('Enter');
      const spans = page.locator('#trace dt:text-is("Evaluation spans") + dd');
      await expect
        .poll(() => spans.textContent())
        .toMatch(
          /^pending retrying after \d+ attempt\(s\): backend down( \(the tracing backend has failed for \d+ s: not sent now, retried with backoff\))?$/,
        );
      await screenshot(page, 'results-page-export-pending');
      await page.keyboard.press('Escape');
      backend.up();
      await expect.poll(() => notice.isVisible(), { timeout: 20_000 }).toBe(false);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await served.close();
    }
  }, 60_000);
});

describe('text from traces in the HTML report', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spanscore-untrusted-'));
    await writeFile(join(dir, 'evil.json'), JSON.stringify(runRequest(EVIL).body));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('escapes every name, and nothing in it runs', async () => {
    const report = join(dir, 'report.html');
    await exec(
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
    ).catch((e: { code?: number }) => {
      if (e.code !== 1) throw e; // 1: the case fails, as it should
    });
    const { page, problems } = await watchedPage();
    await page.goto(`file://${report}`);
    expect(await page.locator('#failures').textContent()).toContain(TOOL);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('body img, body svg, body iframe').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});

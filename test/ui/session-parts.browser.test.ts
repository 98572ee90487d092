import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { otlpRequest, type SpanInput } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

// A session id is untrusted text: markup in it must show as text.
const HOSTILE = '<img src=x onerror="window.pwned=1">conv';

/**
 * Open sessions and parts on the page, from a live `serve` (memory driver, `sessions.maxOpen` 1):
 * the Traces view lists the session held with its turns so far and when it will be scored; a
 * session let go for another is listed cut (`evicted`), its late turn as part 2, and each part's
 * view says what cut it or what it continues, with buttons to the other parts.
 */
describe('open sessions and parts on the page', () => {
  it('lists the open session, then each part, saying the cut and what a part continues', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-session-parts-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const config = await loadConfig({
      env: {},
      overrides: {
        'queue.driver': 'memory',
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 100,
        'sessions.idleMs': 600_000,
        'sessions.maxOpen': 1,
        'export.enabled': false,
        'export.logResults': false,
        'toolHealth.enabled': false,
        suites: [join(dir, 'support.yaml')],
      },
    });
    const service = await startService(
      config,
      { receiver: true, workers: true },
      { log: () => {} },
    );
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    try {
      const origin = new URL(service.url!).origin;
      const send = async (t: { spans: SpanInput[] }) => {
        const response = await fetch(`${origin}/v1/traces`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(otlpRequest(t.spans)),
        });
        expect(response.status).toBe(200);
      };
      const api = async (path: string) =>
        (await (await fetch(`${origin}/api/v1/${path}`)).json()) as {
          sessions: Array<{ traceIds?: string[] }>;
        };
      const first = turn(HOSTILE, ['lookup_order'], 0);
      const second = turn(HOSTILE, ['verify_identity', 'issue_refund'], 60_000, {}, null);
      await send(first);
      await send(second);
      await waitFor(
        async () => (await api('sessions?state=open')).sessions[0]?.traceIds?.length === 2,
        'both turns held',
        15_000,
      );

      await page.goto(`${origin}/ui/#traces`);
      const open = page.locator('#open-session-list tbody tr');
      await expect.poll(() => open.count()).toBe(1);
      const cells = open.first().locator('td');
      expect(await cells.nth(0).textContent()).toBe(HOSTILE);
      expect(await cells.nth(1).textContent()).toBe('1');
      expect(await cells.nth(2).textContent()).toMatch(/^2: [0-9a-f]{8}…, [0-9a-f]{8}…$/);
      expect(await cells.nth(5).textContent()).toMatch(/in 1\d min, unless another turn comes/);
      expect(await page.locator('#open-session-list img').count()).toBe(0);

      // Another session lets it go (maxOpen 1): scored as it stood, cut evicted; a late turn
      // without the test case id opens part 2, ended at once.
      await send(turn('conv-other', ['lookup_order'], 0));
      await waitFor(
        async () => (await api('sessions')).sessions.length === 1,
        'part 1 scored',
        15_000,
      );
      await send(turn(HOSTILE, ['issue_refund'], 120_000, { 'spanscore.session.end': true }, null));
      await waitFor(
        async () => (await api('sessions')).sessions.length === 3,
        'part 2 scored, and conv-other let go for it',
        15_000,
      );

      await page.reload();
      const rows = page.locator('#session-list tbody tr');
      await expect.poll(() => rows.count()).toBe(3);
      const part2 = rows.filter({ hasText: 'part 2' });
      expect(await part2.locator('td').nth(6).textContent()).toBe('part 2, continues: evicted');
      const part1 = page.getByRole('button', { name: `Session ${HOSTILE}`, exact: true });
      expect(await part1.locator('xpath=ancestor::tr').locator('td').nth(6).textContent()).toBe(
        'cut: evicted',
      );

      await part1.click();
      const dialog = page.locator('#trace');
      await expect
        .poll(() => page.locator('#trace-title').textContent())
        .toBe(`Session ${HOSTILE}`);
      await expect
        .poll(() => dialog.locator('dl.facts').textContent())
        .toContain('cut: evicted — let go to make room for other sessions');
      expect(await dialog.locator('section.turn').count()).toBe(2);
      await screenshot(page, 'session-part-1');
      await dialog.getByRole('button', { name: 'part 2' }).click();
      await expect
        .poll(() => page.locator('#trace-title').textContent())
        .toBe(`Session ${HOSTILE}, part 2`);
      await expect
        .poll(() => dialog.locator('dl.facts').textContent())
        .toContain('continues part 1, which was cut (evicted): its earlier turns are not here');
      expect(await dialog.locator('section.turn').count()).toBe(1);
      expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    } finally {
      await page.close();
      await service.close();
    }
  });
});

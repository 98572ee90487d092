import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { TraceListEntry } from '../../src/results/trace-list.js';
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
 * The session view, from a real capture: the AI SDK 6 chat of captures/session-scenarios.ts (four
 * conversations, one trace per turn, `experimental_telemetry.metadata.sessionId`) sent to a live
 * `serve` with the session test cases of test/fixtures/suites/session-captures.yaml. The Traces view
 * lists the sessions; a session opens with its turns in order, each turn's calls, the results,
 * and the failing turn marked; a failure on the overview opens its session.
 */
describe('the session view', () => {
  it('shows a conversation turn by turn, with the failing turn marked', async () => {
    const config = await loadConfig({
      env: {},
      overrides: {
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 200,
        'sessions.idleMs': 500,
        'export.enabled': false,
        'export.logResults': false,
        'toolHealth.enabled': false,
        suites: [join(ROOT, 'test/fixtures/suites/session-captures.yaml')],
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
      const posted = await fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: readFileSync(
          join(ROOT, 'test/fixtures/otlp/captured-ai-sdk-6.0.325-sessions.otlp.json'),
        ),
      });
      expect(posted.status).toBe(200);
      await waitFor(
        async () =>
          (
            (await (await fetch(`${origin}/api/v1/sessions`)).json()) as {
              sessions: TraceListEntry[];
            }
          ).sessions.length === 4,
        'the four conversations scored',
        20_000,
      );

      await page.goto(`${origin}/ui/#traces`);
      const rows = page.locator('#session-list tbody tr');
      await expect.poll(() => rows.count()).toBe(4);
      const row = rows.filter({ hasText: 'conv-refund-before-verify' });
      await expect.poll(() => row.locator('td').nth(3).textContent()).toBe('2');
      expect(await row.locator('td').nth(5).textContent()).toBe('1 pass, 1 fail');
      await row.getByRole('button', { name: 'Session conv-refund-before-verify' }).click();

      const dialog = page.locator('#trace');
      await expect
        .poll(() => page.locator('#trace-title').textContent())
        .toBe('Session conv-refund-before-verify');
      const turns = dialog.locator('section.turn');
      await expect.poll(() => turns.count()).toBe(2);
      expect(await turns.nth(0).locator('ol.turn-calls > li > strong').allTextContents()).toEqual([
        'lookup_order',
        'issue_refund',
      ]);
      expect(await turns.nth(1).locator('ol.turn-calls > li > strong').allTextContents()).toEqual([
        'verify_identity',
      ]);
      // tool_trajectory fails on turn 2 (the refund it expects there came in turn 1).
      expect(await turns.nth(1).getAttribute('class')).toBe('turn failing');
      expect(await turns.nth(0).getAttribute('class')).toBe('turn');
      expect(await turns.nth(1).getAttribute('aria-label')).toBe('Turn 2, failing');
      const trajectory = dialog.locator('tr', { hasText: 'tool_trajectory' });
      expect(await trajectory.locator('td').nth(2).textContent()).toBe('2');
      expect(await trajectory.locator('td').nth(3).textContent()).toContain(
        'issue_refund in turn 1 before any verify_identity',
      );
      await screenshot(page, 'session-view');

      // A turn's trace opens its own record, which says it was scored with its session.
      await turns.nth(0).getByRole('button').click();
      await expect.poll(() => page.locator('#trace-title').textContent()).toMatch(/^Trace /);
      await expect
        .poll(() => dialog.textContent())
        .toContain('a turn of session test case session-captures / refund-before-verify');

      // The overview's failures open the session, and the address can name one.
      await page.goto(`${origin}/ui/#session=conv-repeated-lookup`);
      await expect
        .poll(() => page.locator('#trace-title').textContent())
        .toBe('Session conv-repeated-lookup');
      await expect.poll(() => dialog.locator('section.turn').count()).toBe(3);
      await expect
        .poll(() => dialog.textContent())
        .toContain('lookup_order was called 3 times with the same arguments');
    } finally {
      await page.close();
      await service.close();
    }
  });
});

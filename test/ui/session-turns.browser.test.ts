import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startService } from '../../src/server/start-service.js';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { waitFor } from '../helpers/redis.js';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

const ROOT = new URL('../../', import.meta.url).pathname;
const CAPTURE = join(ROOT, 'test/fixtures/otlp/captured-ai-sdk-6.0.325-sessions.otlp.json');

/**
 * The turns of a conversation still waiting for its session, from a real capture: the AI SDK 6 chat
 * of captures/session-scenarios.ts (`experimental_telemetry.metadata.sessionId`, no end marker)
 * sent to a live `serve` whose session test cases wait 10 minutes idle. Each turn is listed in the
 * Traces view as not scored (scored with its session, and when), with its tools and calls, and its
 * trace view lists its calls.
 */
describe('the Traces view, while a session waits', () => {
  it('shows each waiting turn’s tools and calls, and when its session will be scored', async () => {
    const config = await loadConfig({
      env: {},
      overrides: {
        'receiver.port': 0,
        'receiver.host': '127.0.0.1',
        'assembly.settleMs': 200,
        'export.enabled': false,
        'export.logResults': false,
        'toolHealth.enabled': false,
        suites: [join(ROOT, 'test/fixtures/suites/session-captures.yaml')],
      },
    });
    expect(config.sessions.idleMs).toBe(600_000);
    const service = await startService(
      config,
      { receiver: true, workers: true },
      { log: () => {} },
    );
    const page = await browser.newPage();
    page.setDefaultTimeout(10_000);
    try {
      const origin = new URL(service.url!).origin;
      const body = readFileSync(CAPTURE, 'utf8');
      const turns = turnsOf(body, 'conv-verify-then-refund');
      expect(turns).toHaveLength(2);
      const posted = await fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(posted.status).toBe(200);
      const record = async (traceId: string) =>
        (await (await fetch(`${origin}/api/v1/traces/${traceId}`)).json()) as RunRecord;
      for (const traceId of turns)
        await waitFor(
          async () => (await record(traceId)).state === 'not_scored',
          'the turn scored as a trace',
          20_000,
        );

      await page.goto(`${origin}/ui/#traces`);
      const row = (traceId: string) =>
        page.locator('#trace-list tbody tr', {
          has: page.getByRole('button', { name: `Run record of trace ${traceId}` }),
        });
      const cells = (traceId: string) => row(traceId).locator('td');
      await expect.poll(() => row(turns[1]!).count()).toBe(1);
      // Columns: time, trace, service, state, scored against or why not, tools, calls, results.
      for (const [traceId, tools] of [
        [turns[0]!, 'lookup_order'],
        [turns[1]!, 'verify_identity, issue_refund'],
      ] as const) {
        expect(await row(traceId).getAttribute('data-state')).toBe('not_scored');
        expect(await cells(traceId).nth(3).textContent()).toBe('not scored');
        expect(await cells(traceId).nth(4).textContent()).toMatch(
          /^a turn of session test case session-captures \/ verify-then-refund: scored with its session: after 10 minutes idle, or at once when a turn marks the end \(/,
        );
        expect(await cells(traceId).nth(5).textContent()).toBe(tools);
        expect(await cells(traceId).nth(6).textContent()).toBe('ok');
        expect(await cells(traceId).nth(7).textContent()).toBe('–');
      }
      await screenshot(page, 'session-turns-waiting');

      // The turn's trace view lists its calls while the session waits.
      await row(turns[1]!).getByRole('button').first().click();
      await expect.poll(() => page.locator('#trace-title').textContent()).toMatch(/^Trace /);
      const calls = page.locator('#trace table.calls tbody tr > th');
      await expect.poll(() => calls.allTextContents()).toEqual(['verify_identity', 'issue_refund']);
      // No session was scored: it waits for 10 minutes idle or an end marker.
      const sessions = (await (await fetch(`${origin}/api/v1/sessions`)).json()) as {
        sessions: unknown[];
      };
      expect(sessions.sessions).toEqual([]);
    } finally {
      await page.close();
      await service.close();
    }
  });
});

/** The trace ids of one conversation of the capture, in start order (its session id on each span). */
function turnsOf(otlpJson: string, sessionId: string): string[] {
  type Span = {
    traceId: string;
    startTimeUnixNano: string;
    attributes: Array<{ key: string; value: { stringValue?: string } }>;
  };
  const request = JSON.parse(otlpJson) as {
    resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }>;
  };
  const starts = new Map<string, bigint>();
  for (const rs of request.resourceSpans)
    for (const ss of rs.scopeSpans)
      for (const span of ss.spans) {
        const id = span.attributes.find(a => a.key === 'ai.telemetry.metadata.sessionId');
        if (id?.value.stringValue !== sessionId) continue;
        const start = BigInt(span.startTimeUnixNano);
        const known = starts.get(span.traceId);
        if (known === undefined || start < known) starts.set(span.traceId, start);
      }
  return [...starts].sort((a, b) => (a[1] < b[1] ? -1 : 1)).map(([id]) => id);
}

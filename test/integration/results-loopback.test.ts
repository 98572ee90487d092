import { afterAll, describe, expect, it } from 'vitest';
import { createNetns, type Netns } from '../helpers/netns.js';
import { runRequest, serveWithKnownTraffic } from '../helpers/results-traffic.js';

/**
 * The safe default, seen from a second host: a client in a network namespace joined by a veth
 * pair, whose address is not loopback. Needs root for `ip netns`; CI runs as root and must run
 * it, so only a developer's machine without it skips, and says why.
 */
const netns = createNetns();
const available = !('unavailable' in netns);
if (!available) {
  const why = `the loopback-only test needs a network namespace: ${netns.unavailable}`;
  if (process.env.CI) throw new Error(why);
  console.warn(`skipped: ${why}`);
}
afterAll(() => {
  if (available) netns.remove();
});

describe.skipIf(!available)('results from another address (network namespace)', () => {
  const ns = netns as Netns;
  const serve = (overrides: Record<string, unknown>) =>
    serveWithKnownTraffic({ 'receiver.host': '0.0.0.0', ...overrides });

  it('on 0.0.0.0 with no read token: loopback clients only for /ui/ and /api/v1; ingest open', async () => {
    const served = await serve({});
    try {
      const port = new URL(served.origin).port;
      const remote = `http://${ns.hostAddress}:${port}`;
      const api = await ns.fetch(`${remote}/api/v1/summary`);
      expect(api.status).toBe(403);
      expect(JSON.parse(api.body).error).toMatch(
        /loopback clients only: set a read token \(SPANSCORE_READ_TOKENS, results.readTokens\) or results.public: true/,
      );
      expect((await ns.fetch(`${remote}/ui/`)).status).toBe(403);
      // Ingest is not affected: the same client may send spans.
      const ingest = await ns.fetch(`${remote}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(runRequest({ name: 'remote', tools: ['get_weather'] }).body),
      });
      expect(ingest.status).toBe(200);
      // From loopback the same service answers.
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/summary`)).status).toBe(200);
    } finally {
      await served.close();
    }
  });

  it('answers remote clients with results.public, or with a read token', async () => {
    const open = await serve({ 'results.public': true });
    try {
      const port = new URL(open.origin).port;
      expect((await ns.fetch(`http://${ns.hostAddress}:${port}/api/v1/summary`)).status).toBe(200);
    } finally {
      await open.close();
    }
    const tokened = await serve({ 'results.readTokens': ['reader'] });
    try {
      const url = `http://${ns.hostAddress}:${new URL(tokened.origin).port}/api/v1/summary`;
      expect((await ns.fetch(url)).status).toBe(401);
      expect((await ns.fetch(url, { headers: { authorization: 'Bearer reader' } })).status).toBe(
        200,
      );
    } finally {
      await tokened.close();
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { NewFailureSignature } from '../../src/decide/new-failure-signatures.js';
import type { FailureSignatures } from '../../src/results/summarize-failures.js';
import { sendFailingTrace } from '../helpers/failing-calls.js';
import { serveDefaults } from '../helpers/health-traffic.js';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function get<T>(origin: string, path: string, status = 200): Promise<T> {
  const response = await fetch(`${origin}${path}`);
  expect(response.status, path).toBe(status);
  return (await response.json()) as T;
}

type Failures = FailureSignatures & { tool: string };

/**
 * `serve` with no configuration (tool health scores every trace), on both drivers: the AI SDK 7's
 * tool-health capture over OTLP, then traces of two versions of a service whose tool fails in
 * ways that differ only in their values, and in a new way in the later version.
 * `GET /api/v1/tools/<tool>/failures` groups them; `/api/v1/compare` names the new signature.
 */
describe.each(['memory', 'bullmq'] as const)(
  'failure signatures over the API (%s driver)',
  driver => {
    it('answers a tool’s failures by signature, and compare names the ones new in the candidate', async () => {
      const prefix = testPrefix();
      if (driver === 'bullmq') closers.push(redisFor(prefix).cleanup);
      const served = await serveDefaults(
        driver === 'bullmq'
          ? { 'queue.driver': 'bullmq', 'queue.redisUrl': REDIS_URL, 'queue.prefix': prefix }
          : { 'queue.driver': 'memory' },
      );
      closers.push(served.close);
      const capture = await served.send();

      const weather = await get<Failures>(
        served.origin,
        '/api/v1/tools/get_weather/failures?window=1h',
      );
      expect(weather).toMatchObject({
        tool: 'get_weather',
        other: [],
        heldSinceUnixMs: null,
        signatures: [
          {
            service: 'ai-sdk-health-agent',
            tool: 'get_weather',
            signature: 'no weather station in Atlantis',
            count: 1,
            errors: 1,
            refused: 0,
            versions: [],
          },
        ],
      });
      expect(capture).toContain(weather.signatures[0]!.exampleTraceIds[0]);
      const refused = await get<Failures>(
        served.origin,
        '/api/v1/tools/delete_booking/failures?window=1h&service=ai-sdk-health-agent',
      );
      expect(refused.signatures.map(s => [s.signature, s.errors, s.refused])).toEqual([
        [
          'AI_NoSuchToolError: Model tried to call unavailable tool <str>. Available tools: get_weather, convert_currency.',
          0,
          1,
        ],
      ]);

      const v1 = [
        await sendFailingTrace(served.origin, [{ tool: 'lookup', error: 'order 1234 not found' }], {
          version: '1.0',
        }),
        await sendFailingTrace(served.origin, [{ tool: 'lookup', error: 'order 5678 not found' }], {
          version: '1.0',
        }),
      ];
      const v2 = [
        await sendFailingTrace(
          served.origin,
          [
            { tool: 'lookup', error: 'order 42 not found' },
            { tool: 'lookup', error: "timeout after 30000ms calling 'orders-db'" },
          ],
          { version: '1.1' },
        ),
      ];
      const lookup = await get<Failures>(
        served.origin,
        `/api/v1/tools/lookup/failures?from=${Date.now() - 600_000}&to=${Date.now() + 1000}&service=shop-agent`,
      );
      expect(
        lookup.signatures.map(s => [s.signature, s.count, s.versions, s.exampleTraceIds]),
      ).toEqual([
        ['order <n> not found', 3, ['1.1', '1.0'], [v2[0], v1[1], v1[0]]],
        ['timeout after <n>ms calling <str>', 1, ['1.1'], [v2[0]]],
      ]);
      const onlyV1 = await get<Failures>(
        served.origin,
        '/api/v1/tools/lookup/failures?version=1.0',
      );
      expect(onlyV1.signatures.map(s => [s.signature, s.count])).toEqual([
        ['order <n> not found', 2],
      ]);

      const byVersion = await get<{ newFailureSignatures: NewFailureSignature[] }>(
        served.origin,
        '/api/v1/compare?by=version&baseline=1.0&candidate=1.1&service=shop-agent&window=1h',
      );
      expect(byVersion.newFailureSignatures).toEqual([
        expect.objectContaining({
          service: 'shop-agent',
          tool: 'lookup',
          signature: 'timeout after <n>ms calling <str>',
          count: 1,
          versions: ['1.1'],
          exampleTraceIds: [v2[0]],
          baselineOther: 0,
        }),
      ]);
      // This hour against the one before, when nothing failed: every signature is new.
      const byWindow = await get<{ newFailureSignatures: NewFailureSignature[] }>(
        served.origin,
        '/api/v1/compare?by=window&window=1h',
      );
      expect(byWindow.newFailureSignatures.length).toBeGreaterThanOrEqual(5);

      // Tool names with a slash, and longer than a path parameter may be; unknown or bad parameters.
      const long = 'x'.repeat(300);
      const longName = await sendFailingTrace(served.origin, [{ tool: long, error: 'boom' }]);
      const longFailures = await get<Failures>(served.origin, `/api/v1/tools/${long}/failures`);
      expect(longFailures.signatures.map(s => [s.tool, s.exampleTraceIds])).toEqual([
        [long, [longName]],
      ]);
      expect((await fetch(`${served.origin}/api/v1/tools/lookup/other`)).status).toBe(404);
      expect((await fetch(`${served.origin}/api/v1/tools//failures`)).status).toBe(400);
      const slashed = await get<Failures>(served.origin, '/api/v1/tools/a%2Fb/failures');
      expect(slashed).toMatchObject({ tool: 'a/b', signatures: [], other: [] });
      expect(
        (await get<{ error: string }>(served.origin, '/api/v1/tools/lookup/failures?agent=x', 400))
          .error,
      ).toContain('unknown query parameter(s) "agent"');
      expect(
        (
          await get<{ error: string }>(
            served.origin,
            '/api/v1/tools/lookup/failures?window=soon',
            400,
          )
        ).error,
      ).toContain('query parameter "window"');
    }, 60_000);
  },
);

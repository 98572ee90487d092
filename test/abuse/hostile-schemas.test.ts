/**
 * Tool schemas built to cost the validator, sent to a real zero-config `serve` (tool health on, no
 * token), on both drivers: each hostile call ends unchecked with the bound it passed, `/healthz`
 * answers throughout (every poll within a liveness deadline), the process stays within the abuse suite's memory bound, and a valid and an
 * invalid call sent afterwards read right. The work each case costs is counted in
 * src/normalize/check-arguments.hostile.test.ts; here, that the service lives through it.
 */
import { describe, expect, it } from 'vitest';
import { otlpRequest, traceId, type SpanInput } from '../helpers/otlp-json-builder.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { treeRssMb } from '../helpers/process-tree.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import {
  deepSchemaText,
  JsonText,
  refFanOut,
  toolSchemaTrace,
} from '../helpers/tool-schema-traces.js';

/** The abuse suite's bound for `serve` with the memory driver's bounded heap (abuse.test.ts). */
const RSS_BOUND_MB = 400;
const { run, cleanups } = useProcessFixtures();

const exponential = (() => {
  const definitions: Record<string, unknown> = { d30: { type: 'string' } };
  for (let i = 0; i < 30; i++)
    definitions[`d${i}`] = {
      anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }],
    };
  return { type: 'object', definitions, properties: { v: { $ref: '#/definitions/d0' } } };
})();

/** Each hostile case: its schema, its arguments, and what its reason must say. */
const CASES: Array<[string, unknown, unknown, RegExp]> = [
  ['400 $refs to a 200-property definition', refFanOut(400, 200), { r0: {} }, /\$refs, the bound/],
  ['a schema 3,000 deep (27 KB)', deepSchemaText(3_000), [[1]], /nests deeper than/],
  [
    'anyOf of 200 branches over 4,000 items',
    {
      type: 'array',
      items: { anyOf: Array.from({ length: 200 }, (_, i) => ({ required: [`k${i}`] })) },
    },
    Array.from({ length: 4_000 }, () => ({})),
    /steps/,
  ],
  ['an exponential anyOf of $refs', exponential, { v: 5 }, /steps/],
  [
    'a 200 KB string under a pattern',
    { type: 'object', properties: { a: { type: 'string', pattern: '^[a-z]+$' } } },
    { a: 'a'.repeat(200_000) },
    /longer than 10000 characters/,
  ],
  [
    'an enum of 5,000 values',
    { type: 'object', properties: { n: { enum: Array.from({ length: 5_000 }, (_, i) => i) } } },
    { n: -1 },
    /enum/,
  ],
  [
    'arguments 5,000 deep',
    { type: 'object', properties: { a: { type: 'object' } } },
    new JsonText(`${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`),
    /arguments are too large to check/,
  ],
  ['a remote $ref', { $ref: 'http://127.0.0.1:9/schema.json' }, {}, /not local/],
  [
    'a 479-character pattern of 120,000 RE2 instructions',
    {
      type: 'object',
      properties: {
        s: {
          type: 'string',
          pattern: Array.from({ length: 30 }, (_, i) => `(?:a|ab){1000}${i % 10}`).join('|'),
        },
      },
    },
    { s: 'ab' },
    /regular-expression instructions to compile \(Unicode tables and case folding counted\), the bound/,
  ],
  [
    'a 1,003-instruction pattern over 25 strings of 10,000 characters',
    { type: 'array', items: { type: 'string', pattern: '[a-z]{1000}[^a-z]' } },
    Array.from({ length: 25 }, () => 'a'.repeat(10_000)),
    /steps/,
  ],
  [
    'a dependencies list of 2,000 names',
    {
      type: 'array',
      items: { dependencies: { a: Array.from({ length: 2_000 }, (_, i) => i.toString(36)) } },
    },
    [{ a: 1 }],
    /dependentRequired\/dependencies lists/,
  ],
];

const currency = {
  type: 'object',
  properties: { amount: { type: 'number' }, to: { type: 'string' } },
  required: ['amount', 'to'],
};

async function serve(env: Record<string, string>) {
  const cli = run(['serve', '--port', '0', '--host', '127.0.0.1'], {
    SPANSCORE_EXPORT: 'false',
    SPANSCORE_SETTLE_MS: '100',
    ...env,
  });
  const url = (await cli.waitForLine(/listening on (\S+) \((memory|bullmq) driver\)/))[1]!;
  return { url, origin: new URL(url).origin, pid: cli.child.pid! };
}

/**
 * Polls `/healthz` every 100 ms until stopped: every answer's status, 0 for one that did not come
 * within {@link HEALTH_DEADLINE_MS}. The deadline is a liveness bound, far above any answer of a
 * working service on a loaded host, and far below the tens of seconds a stalled event loop (the
 * inlined `$ref` compile this suite guards against) takes; how much work each case costs is counted,
 * not timed, in check-arguments.hostile.test.ts.
 */
const HEALTH_DEADLINE_MS = 8_000;
function pollHealth(origin: string) {
  const answers: Array<{ status: number }> = [];
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const status = await fetch(`${origin}/healthz`, {
        signal: AbortSignal.timeout(HEALTH_DEADLINE_MS),
      })
        .then(r => r.status)
        .catch(() => 0);
      answers.push({ status });
      await new Promise(r => setTimeout(r, 100));
    }
  })();
  return {
    answers,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

interface Row {
  scorer: string;
  status: string;
  label: string | null;
  reason: string;
}

/** The `tool_arguments` results of `trace`, once there are some. */
async function resultsOf(origin: string, trace: string): Promise<Row[]> {
  let rows: Row[] = [];
  await waitFor(
    async () => {
      const body = (await (
        await fetch(`${origin}/api/v1/results?traceId=${trace}&scorer=tool_arguments`)
      ).json()) as { results: Row[] };
      rows = body.results;
      return rows.length > 0;
    },
    `tool_arguments of ${trace}`,
    60_000,
  );
  return rows;
}

describe('hostile tool schemas against a live serve', () => {
  it.each(['memory', 'bullmq'])(
    '%s driver: every hostile call is unchecked with its bound; the service answers and scores what follows',
    async driver => {
      const env: Record<string, string> = {};
      if (driver === 'bullmq') {
        const prefix = testPrefix();
        const redis = redisFor(prefix);
        cleanups.push(() => redis.cleanup());
        Object.assign(env, { REDIS_URL, SPANSCORE_REDIS_PREFIX: prefix });
      }
      const { url, origin, pid } = await serve(env);
      const health = pollHealth(origin);
      const base = driver === 'memory' ? 70_000 : 100_000;
      const toolTrace = (n: number, schema: unknown, args: unknown) =>
        toolSchemaTrace(n, schema, [args], { service: 'hostile' });
      const post = async (spans: SpanInput[]) => {
        const body = JSON.stringify(otlpRequest(spans));
        const response = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(200);
      };
      for (const [i, [, schema, args]] of CASES.entries())
        await post(toolTrace(base + i, schema, args));
      // 300 distinct schemas, one trace each: the validator's caches stay bounded (10,000 are
      // counted in check-arguments.hostile.test.ts; sent here at once they meet the receiver's
      // own bound on buffered traces first, a 429 with Retry-After).
      for (let i = 0; i < 300; i++)
        await post(
          toolTrace(base + 1_000 + i, { ...currency, title: `v${i}` }, { amount: 1, to: 'EUR' }),
        );
      await post(toolTrace(base + 50, currency, { amount: 100, to: 'USD' }));
      await post(toolTrace(base + 51, currency, { amount: 'one hundred' }));

      const valid = await resultsOf(origin, traceId(base + 50));
      expect(valid[0]).toMatchObject({ status: 'scored', label: 'pass' });
      const invalid = await resultsOf(origin, traceId(base + 51));
      expect(invalid[0]).toMatchObject({ status: 'scored', label: 'fail' });
      expect(invalid[0]!.reason).toContain('/amount must be number');
      expect(invalid[0]!.reason).toContain("must have required property 'to'");

      for (const [i, [name, , , reason]] of CASES.entries()) {
        const rows = await resultsOf(origin, traceId(base + i));
        expect(rows[0], name).toMatchObject({ status: 'skipped', label: null });
        expect(rows[0]!.reason, name).toMatch(reason);
      }
      await health.stop();
      expect(health.answers.length).toBeGreaterThan(5);
      expect(health.answers.filter(a => a.status !== 200)).toEqual([]);
      expect(treeRssMb(pid)).toBeLessThan(RSS_BOUND_MB);
    },
    180_000,
  );
});

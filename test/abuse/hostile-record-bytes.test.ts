/**
 * Run records of the memory driver, each as large as a trace may make one: 200 tool calls (what a
 * record keeps), each with 2,100 characters of arguments, of result and of error (kept cut at
 * 2,000 each). `maxRuns` (5,000) alone let 71 such traces, 620 KB of gzip, run `serve`'s 192 MB
 * heap out (SIGABRT); the store now lets its oldest records go past `MEMORY_STORE_BOUNDS`.
 */
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { otlpRequest, spanId, traceId, type SpanInput } from '../helpers/otlp-json-builder.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { treeRssMb } from '../helpers/process-tree.js';
import { waitFor } from '../helpers/redis.js';

const { run } = useProcessFixtures();

/** As the abuse suite bounds `serve` with the memory driver (see abuse.test.ts). */
const MEMORY_DRIVER_RSS_BOUND_MB = 400;
const TRACES = 110;
const CALLS = 200;

/** Trace `n`: a root and {@link CALLS} failed tool calls, each with long arguments and result. */
function largeRecordTrace(n: number): Buffer {
  const t = traceId(n);
  const spans: SpanInput[] = [
    { traceId: t, spanId: spanId(n, 1), name: 'invoke_agent', startMs: 0, endMs: 100 },
  ];
  for (let i = 0; i < CALLS; i++)
    spans.push({
      traceId: t,
      spanId: spanId(n, i + 2),
      parentSpanId: spanId(n, 1),
      name: 'execute_tool',
      startMs: 1,
      endMs: 2,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': `tool_${i % 20}`,
        'gen_ai.tool.call.id': `c${i}`,
        'gen_ai.tool.call.arguments': `a${n}_${i}`.padEnd(2100, 'a'),
        'gen_ai.tool.call.result': `r${n}_${i}`.padEnd(2100, 'r'),
      },
      status: { code: 2, message: `e${n}_${i}`.padEnd(2100, 'e') },
    });
  return gzipSync(JSON.stringify(otlpRequest(spans)));
}

describe('run records as large as a trace makes them (memory driver)', () => {
  it('let the oldest go within the bound, and serve lives', async () => {
    const cli = run(['serve', '--port', '0', '--host', '127.0.0.1'], {
      SPANSCORE_EXPORT: 'false',
      SPANSCORE_SETTLE_MS: '100',
    });
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    const origin = new URL(url).origin;
    const status = (t: string) => fetch(`${origin}/api/v1/traces/${t}`).then(r => r.status);
    for (let n = 1; n <= TRACES; n++) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: largeRecordTrace(0x100 + n),
      });
      expect(response.status, `trace ${n}`).toBe(200);
      // Each scored before the next: what is held is the store's, not a backlog.
      await waitFor(
        async () => {
          const r = await fetch(`${origin}/api/v1/traces/${traceId(0x100 + n)}`);
          return r.ok && ((await r.json()) as { state: string }).state === 'scored';
        },
        `trace ${n} scored`,
        30_000,
      );
    }
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect(cli.child.exitCode).toBeNull();
    expect(treeRssMb(cli.child.pid!)).toBeLessThan(MEMORY_DRIVER_RSS_BOUND_MB);
    // Far fewer than maxRuns: the first records went for their bytes, the newest are kept.
    expect(await status(traceId(0x100 + 1))).toBe(404);
    expect(await status(traceId(0x100 + TRACES))).toBe(200);
  }, 240_000);
});

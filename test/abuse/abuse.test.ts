/**
 * The abuse suite: what an attacker (or a broken exporter) sends to a real `spanscore serve`
 * (memory driver, as a process): amplified bodies, deep nesting, one giant trace then a small one
 * from another sender, a burst of 100,000 tiny traces while `/healthz` is polled, a trace built to
 * cost normalization (a deep parent chain, loops, long dotted keys) then a normal one. Each case asserts
 * the answer, that the process lives and answers `/healthz`, and that its RSS stays under
 * {@link RSS_BOUND_MB}. Hostile text in every report format is in hostile-report-text.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  deepJson,
  emptyAttributesProtobuf,
  emptyScopesProtobuf,
  emptySpansJson,
  emptySpansProtobuf,
  gzip,
} from '../helpers/amplified-bodies.js';
import {
  oneSpanTraces,
  otlpRequest,
  spanId,
  traceId,
  type SpanInput,
} from '../helpers/otlp-json-builder.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { treeRssMb } from '../helpers/process-tree.js';
import { REDIS_URL, redisFor, testPrefix, waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';

/**
 * The most memory the process may hold in any case here (the 31 KB request alone took it past
 * 4.6 GB before; a burst of 100,000 held traces peaks at 600–850 MB with the default bounds).
 */
const RSS_BOUND_MB = 1024;
/**
 * The same for the memory driver, whose service runs in a heap of `queue.memoryHeapMb` (192 MB):
 * `serve` and the service it starts, together, run the built CLI here. Measured (from source):
 * giant trace 242 MB (200,000 spans sent; 185 MB with the 60,000 sent now), burst 312 MB; without
 * the bound the burst took 600–850 MB.
 */
const MEMORY_DRIVER_RSS_BOUND_MB = 400;
const { run, cleanups } = useProcessFixtures();

/**
 * The giant trace comes in this many requests of 10,000 spans: the first fills its cap
 * (`assembly.maxSpansPerTrace`, 10,000), the 50,000 after it are refused. (It was 20: 190,000
 * refused spans said no more than 50,000 do and cost about 40 s of CPU a run, over both drivers.)
 */
const CHUNKS = 6;

/** The RSS of `serve` with the service it starts (the memory driver's bounded heap): both count. */
const rssMb = treeRssMb;

async function serve(env: Record<string, string> = {}) {
  const cli = run(['serve', '--port', '0', '--host', '127.0.0.1'], {
    SPANSCORE_EXPORT: 'false',
    SPANSCORE_SETTLE_MS: '100',
    ...env,
  });
  const url = (await cli.waitForLine(/listening on (\S+) \((memory|bullmq) driver\)/))[1]!;
  const origin = new URL(url).origin;
  return { cli, url, origin, pid: cli.child.pid! };
}

/** `spanscore_request_bytes_inflated_total` of the service at `origin`. */
async function inflated(origin: string): Promise<number> {
  const value = await scrapeMetric(`${origin}/metrics`, 'spanscore_request_bytes_inflated_total');
  if (value === undefined) throw new Error('no spanscore_request_bytes_inflated_total in /metrics');
  return value;
}

const post = (url: string, body: Buffer, type: string, gzipped = false) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': type, ...(gzipped && { 'content-encoding': 'gzip' }) },
  });

/** `count` one-span traces (each span its trace's root) of `service`, as OTLP/JSON. */
const tinyTraces = (first: number, count: number, service = 'burst'): Buffer =>
  Buffer.from(
    JSON.stringify(otlpRequest(oneSpanTraces(first, count, { name: 'invoke_agent', service }))),
  );

describe('hostile requests against a live serve', () => {
  it('refuses amplified bodies after bounded work (bytes inflated, where decoding stopped), and keeps serving', async () => {
    const { url, origin, pid } = await serve();
    const PB = 'application/x-protobuf';
    // Work is counted, not timed: what each body inflated to (the receiver's counter, against
    // the length gunzip gives here), and the byte where decoding stopped (in the 413's message),
    // computed from each body's layout: a few bytes per item, up to the limit.
    const cases: Array<[string, Buffer, RegExp, number, number]> = [
      // The 16,385th span's tag: a 10-byte head, then 2 bytes a span.
      [
        '16 M empty spans, 31 KB gzip',
        emptySpansProtobuf(16_000_000),
        /more than 16384 spans/,
        32_779,
        32_000_010,
      ],
      // The 1,000,001st item (the resource, then 2 bytes a scope).
      ['8 M empty scopes', emptyScopesProtobuf(8_000_000), /nested items/, 2_000_004, 16_000_005],
      // The 1,000,001st item (resource, scope, span, then 2 bytes an attribute after a 46-byte head).
      [
        'a span with 8 M empty attributes',
        emptyAttributesProtobuf(8_000_000),
        /nested items/,
        2_000_041,
        16_000_046,
      ],
      // The 1,000,001st `{` or `[`: 6 in the 43-byte head, then one per 3-byte `{},`.
      ['10 M empty JSON spans', emptySpansJson(10_000_000), /nested items/, 3_000_025, 30_000_048],
    ];
    for (const [name, raw, message, stoppedAt, length] of cases) {
      const body = gzip(raw);
      expect(body.length, name).toBeLessThan(64 * 1024);
      expect(raw.length, name).toBe(length);
      const inflatedBefore = await inflated(origin);
      const response = await post(url, body, name.includes('JSON') ? 'application/json' : PB, true);
      expect({ name, status: response.status }).toEqual({ name, status: 413 });
      const text = Buffer.from(await response.arrayBuffer()).toString('latin1');
      expect(text, name).toMatch(message);
      expect(text, name).toContain(`(refused at byte ${stoppedAt} of ${length})`);
      expect((await inflated(origin)) - inflatedBefore, name).toBe(length);
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    }
    // Nesting past 32 levels: the span is rejected alone, with where and why.
    const deep = await post(url, deepJson(1000), 'application/json');
    expect(deep.status).toBe(200);
    expect(await deep.json()).toMatchObject({
      partialSuccess: {
        rejectedSpans: '1',
        errorMessage: expect.stringContaining('nested deeper than 32 levels'),
      },
    });
    expect(rssMb(pid)).toBeLessThan(MEMORY_DRIVER_RSS_BOUND_MB);
  });

  it.each(['memory', 'bullmq'])(
    '%s driver: one giant trace cannot lock another sender out: past its cap its spans are refused, others get 200',
    async driver => {
      const redisEnv: Record<string, string> = {};
      if (driver === 'bullmq') {
        const prefix = testPrefix();
        const redis = redisFor(prefix);
        cleanups.push(() => redis.cleanup());
        Object.assign(redisEnv, { REDIS_URL, SPANSCORE_REDIS_PREFIX: prefix });
      }
      const { url, origin, pid } = await serve({
        ...redisEnv,
        // Evaluation spans would wait for an unreachable backend: the giant trace's spans must not.
        SPANSCORE_EXPORT: 'true',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:9/v1/traces',
        SPANSCORE_MAX_WAIT_MS: '60000',
        // The trace stays open while its chunks arrive: on a loaded host a gap of the default
        // test settle time (100 ms) between two chunks scored it, and the chunks after it were
        // late spans of a scored trace (kept and counted), not spans past its cap.
        SPANSCORE_SETTLE_MS: '60000',
      });
      const giant = traceId(900_000_000);
      let refused = 0;
      for (let chunk = 0; chunk < CHUNKS; chunk++) {
        const spans = Array.from({ length: 10_000 }, (_, i) => ({
          traceId: giant,
          spanId: spanId(900_000_000, chunk * 10_000 + i + 2),
          parentSpanId: spanId(900_000_000, 1),
          name: 'step',
          startMs: 0,
          endMs: 1,
          service: 'giant',
        }));
        const response = await post(
          url,
          Buffer.from(JSON.stringify(otlpRequest(spans))),
          'application/json',
        );
        expect(response.status).toBe(200);
        const body = (await response.json()) as { partialSuccess?: { rejectedSpans?: string } };
        refused += Number(body.partialSuccess?.rejectedSpans ?? 0);
      }
      // CHUNKS × 10,000 sent, 10,000 kept (assembly.maxSpansPerTrace), the rest refused.
      expect(refused).toBe((CHUNKS - 1) * 10_000);
      console.log(`abuse: giant trace (${driver}): RSS ${Math.round(rssMb(pid))} MB`);
      const small = await post(url, tinyTraces(1, 1, 'small-agent'), 'application/json');
      expect(small.status).toBe(200);
      const metrics = await (await fetch(`${origin}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(
          `^spanscore_spans_backpressure_total\\{reason="trace_too_large"\\} ${(CHUNKS - 1) * 10_000}$`,
          'm',
        ),
      );
      expect(rssMb(pid)).toBeLessThan(
        driver === 'memory' ? MEMORY_DRIVER_RSS_BOUND_MB : RSS_BOUND_MB,
      );
    },
    // 60,000 spans written as OTLP/JSON here and decoded by `serve` (200,000 took 12–18 s on a
    // quiet host, and past the 30 s default in a full run on a loaded one).
    90_000,
  );

  it('a burst of 100,000 tiny traces: all accepted (429 while the buffer is full) and scored, /healthz answers all through it', async () => {
    const { url, origin, pid } = await serve();
    let polling = true;
    const answeredMs: number[] = [];
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const response = await fetch(`${origin}/healthz`);
        expect(response.status).toBe(200);
        answeredMs.push(performance.now() - started);
        await new Promise(r => setTimeout(r, 50));
      }
    })();
    // As an OTLP exporter sends: a request refused while the buffer is full (429) is sent again
    // after its Retry-After, so every trace is accepted in the end.
    let refusals = 0;
    // /healthz asked between batches too, while the batches before are buffered and scored: how
    // many times the poller above got in depends on how fast the burst went (17 to 29 on a fast
    // host), these do not.
    const between: number[] = [];
    for (let first = 1; first <= 100_000; first += 10_000) {
      for (;;) {
        const response = await post(url, tinyTraces(first, 10_000), 'application/json');
        if (response.status === 200) break;
        expect(response.status).toBe(429);
        const retryAfter = Number(response.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        refusals++;
        await new Promise(r => setTimeout(r, retryAfter * 1000));
      }
      between.push((await fetch(`${origin}/healthz`)).status);
    }
    const scored = async () => {
      const text = await (await fetch(`${origin}/metrics`)).text();
      return Number(/^spanscore_traces_not_scored_total\S* (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    await waitFor(async () => (await scored()) >= 100_000, 'all 100,000 traces handled', 60_000);
    polling = false;
    await poller;
    // How fast /healthz answered is measured by `npm run bench` (the burst's p99), not asserted
    // here: on a shared machine a test bounding it fails for the machine's sake. Printed to see.
    const sorted = answeredMs.sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
    console.log(
      `abuse: burst of 100,000 traces: ${refusals} requests refused and sent again, /healthz p99 ${Math.round(p99)} ms, slowest ${Math.round(sorted.at(-1)!)} ms over ${sorted.length} polls, RSS ${Math.round(rssMb(pid))} MB`,
    );
    expect(between).toEqual(Array<number>(10).fill(200));
    expect(sorted.length).toBeGreaterThan(0);
    expect(rssMb(pid)).toBeLessThan(MEMORY_DRIVER_RSS_BOUND_MB);
  }, 120_000);

  it('a trace built to cost normalization (deep chain, loops, long dotted keys), then a normal one from another sender: both answered, the normal one scored', async () => {
    const { url, origin, pid } = await serve();
    const health = (async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push(
          await fetch(`${origin}/healthz`).then(
            r => r.status,
            () => 0,
          ),
        );
        await new Promise(r => setTimeout(r, 200));
      }
      return statuses;
    })();
    const n = 910_000_000;
    const hostile = traceId(n);
    const at = (
      i: number,
      parent: string,
      attributes: SpanInput['attributes'] = {},
    ): SpanInput => ({
      traceId: hostile,
      spanId: spanId(n, i),
      parentSpanId: parent,
      name: `step ${i}`,
      startMs: i,
      endMs: i + 1,
      service: 'hostile',
      attributes,
    });
    // A chain 9,000 deep of agents and their tools (the trace's span cap is 10,000), ...
    const spans: SpanInput[] = Array.from({ length: 9_000 }, (_, i) =>
      at(
        i + 1,
        i === 0 ? '' : spanId(n, i),
        i % 2 === 0
          ? { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': `agent ${i % 5}` }
          : { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': `tool ${i % 3}` },
      ),
    );
    // ... spans that are their own parent, two that are each other's, ...
    for (let i = 9_001; i <= 9_100; i++)
      spans.push(
        at(i, spanId(n, i), {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'loop',
        }),
      );
    spans.push(at(9_101, spanId(n, 9_102)), at(9_102, spanId(n, 9_101)));
    // ... and model spans with 200 KB keys of dotted digits and JSON nested 20,000 deep (the
    // receiver counts brackets inside strings too: 100,000 on ten spans pass its million items).
    for (let i = 9_103; i < 9_113; i++)
      spans.push(
        at(i, spanId(n, 1), {
          [`llm.output_messages${'.0'.repeat(100_000)}`]: 'x',
          'llm.output_messages.0.message.role': 'assistant',
          'gen_ai.output.messages': `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
        }),
      );
    const first = await post(
      url,
      Buffer.from(JSON.stringify(otlpRequest(spans))),
      'application/json',
    );
    expect(first.status).toBe(200);
    const normal = traceId(n + 1);
    const second = await post(
      url,
      Buffer.from(
        JSON.stringify(
          otlpRequest([
            {
              traceId: normal,
              spanId: spanId(n + 1, 1),
              name: 'invoke_agent',
              startMs: 0,
              endMs: 10,
              service: 'normal',
              attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'a' },
            },
            {
              traceId: normal,
              spanId: spanId(n + 1, 2),
              parentSpanId: spanId(n + 1, 1),
              name: 'execute_tool get_weather',
              startMs: 1,
              endMs: 2,
              service: 'normal',
              attributes: {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': 'get_weather',
                'gen_ai.tool.call.arguments': '{"city":"Paris"}',
              },
            },
          ]),
        ),
      ),
      'application/json',
    );
    expect(second.status).toBe(200);
    const resultsOf = async (trace: string) =>
      (
        (await (await fetch(`${origin}/api/v1/results?traceId=${trace}`)).json()) as {
          results: Array<{ status: string }>;
        }
      ).results;
    await waitFor(
      async () => (await resultsOf(normal)).length > 0,
      'the normal trace scored',
      60_000,
    );
    const statuses = (await resultsOf(normal)).map(r => r.status);
    expect(statuses).toContain('scored');
    expect(statuses).not.toContain('failed');
    // The hostile trace was scored too, and its record says what was left unread.
    await waitFor(
      async () => (await resultsOf(hostile)).length > 0,
      'the hostile trace scored',
      60_000,
    );
    const inspected = (await (
      await fetch(`${origin}/api/v1/traces/${hostile}/inspect`)
    ).json()) as { diagnostics: Array<{ code: string }> };
    expect(inspected.diagnostics.map(d => d.code)).toContain('input_bounded');
    expect(await health).toEqual([200, 200, 200, 200, 200]);
    expect(rssMb(pid)).toBeLessThan(MEMORY_DRIVER_RSS_BOUND_MB);
  }, 120_000);
});

/**
 * The embedded driver on two threads (`queue.memoryThreads: 2`) through the real
 * CLI: one process, the receiving thread and the scoring thread; spans, refusals, API reads and
 * metrics cross between them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { childPids } from '../helpers/process-tree.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { sendSpans } from '../helpers/send-spans.js';

const { run } = useProcessFixtures();
const DEMO_SUITE = new URL('../../config/suites/demo.yaml', import.meta.url).pathname;

function serve(env: Record<string, string> = {}, config?: string) {
  const args = ['serve', '--port', '0', '--host', '127.0.0.1', '--suite', DEMO_SUITE];
  if (config) {
    const file = join(mkdtempSync(join(tmpdir(), 'spanscore-two-threads-')), 'spanscore.yaml');
    writeFileSync(file, config);
    args.push('--config', file);
  }
  return run(args, {
    SPANSCORE_EXPORT: 'false',
    SPANSCORE_SETTLE_MS: '100',
    SPANSCORE_MEMORY_THREADS: '2',
    ...env,
  });
}

/** POSTs spans as one OTLP/protobuf request, as an exporter would, without retrying. */
function post(url: string, spans: ReturnType<typeof sdkAgentTrace>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf' },
    body: ProtobufTraceSerializer.serializeRequest(spans)!,
  });
}

describe('serve with the memory driver on two threads', () => {
  it('scores in one process, says the scoring thread is bounded, and serves each metric once with both threads’ counts', async () => {
    const cli = serve();
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    expect(cli.stderr()).toContain(
      "spanscore: memory driver: two threads, receiving on one; the scoring thread's V8 heap bounded to 192 MB",
    );
    expect(childPids(cli.child.pid!)).toEqual([]);
    const weather = sdkAgentTrace('weather-lisbon', ['get_weather']);
    const trip = sdkAgentTrace('book-trip', ['search_flights', 'book_flight']);
    await sendSpans(url, weather);
    await sendSpans(url, trip);
    await cli.waitForLine(/scored trace \S+ test case weather-lisbon/);
    await cli.waitForLine(/scored trace \S+ test case book-trip/);

    const metricsUrl = url.replace('/v1/traces', '/metrics');
    const text = await (await fetch(metricsUrl)).text();
    const families = [...text.matchAll(/^# TYPE (\S+)/gm)].map(m => m[1]!);
    expect(families.length).toBeGreaterThan(30);
    expect(new Set(families).size).toBe(families.length);
    // Received on one thread, scored on the other.
    expect(text).toMatch(
      new RegExp(`^spanscore_spans_received_total ${weather.length + trip.length}$`, 'm'),
    );
    expect(text).toMatch(/^spanscore_traces_scored_total 2$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    const open = await fetch(metricsUrl, {
      headers: { accept: 'application/openmetrics-text; version=1.0.0' },
    });
    expect(open.headers.get('content-type')).toMatch(/^application\/openmetrics-text/);
    const body = await open.text();
    expect(body.match(/^# EOF$/gm)).toHaveLength(1);
    expect(body.endsWith('# EOF\n')).toBe(true);
    expect(body).toMatch(/^spanscore_traces_scored_total 2$/m);

    const summary = (await (await fetch(url.replace('/v1/traces', '/api/v1/summary'))).json()) as {
      total: { count: number; pass: number };
    };
    expect(summary.total).toMatchObject({ count: 4, pass: 4 });
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toMatch(/SIGTERM: shutting down[\s\S]*spanscore: stopped\n$/);
  });

  it('shows a trace the scoring thread holds through the API of the receiving one', async () => {
    const cli = serve({ SPANSCORE_SETTLE_MS: '600000' });
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    const spans = sdkAgentTrace('weather-lisbon', ['get_weather']);
    await sendSpans(url, spans);
    const traceId = spans[0]!.spanContext().traceId;
    const api = url.replace('/v1/traces', `/api/v1/traces/${traceId}`);
    const trace = (await (await fetch(api)).json()) as { state: string };
    expect(trace.state).toBe('pending');
    const inspect = await fetch(`${api}/inspect`);
    expect(inspect.status).toBe(200);
    const text = await inspect.text();
    expect(text).toContain('get_weather');
    expect(text).toContain(traceId);
  });

  it('refuses a request the scoring thread has no room for with 429 and Retry-After, undecoded once the buffer is full, and keeps what it accepted', async () => {
    const cli = serve(
      { SPANSCORE_SETTLE_MS: '600000' },
      'assembly: { maxBufferedSpans: 12, admissionWaitMs: 0, maxServiceShare: 1 }\n',
    );
    const url = (await cli.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    const statuses: number[] = [];
    const accepted: string[] = [];
    let refused: { response: Response; traceId: string } | undefined;
    for (let i = 0; i < 8 && !refused; i++) {
      const spans = sdkAgentTrace('weather-lisbon', ['get_weather']);
      const traceId = spans[0]!.spanContext().traceId;
      const response = await post(url, spans);
      statuses.push(response.status);
      if (response.status === 200) accepted.push(traceId);
      else refused = { response, traceId };
    }
    expect(statuses[0]).toBe(200);
    expect(refused?.response.status).toBe(429);
    expect(Number(refused!.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // What was accepted is held for scoring; what was refused is not.
    const stateOf = async (traceId: string): Promise<unknown> => {
      const response = await fetch(url.replace('/v1/traces', `/api/v1/traces/${traceId}`));
      return response.status === 200
        ? ((await response.json()) as { state: string }).state
        : response.status;
    };
    for (const traceId of accepted) expect(await stateOf(traceId)).toBe('pending');
    expect(await stateOf(refused!.traceId)).toBe(404);

    // Once the scoring thread's buffer is full, the receiving thread refuses before decoding,
    // as one thread does: more requests add to the undecoded refusals, not to the spans decoded
    // and sent across only to be refused there.
    const metric = async (line: RegExp): Promise<number> => {
      const text = await (await fetch(url.replace('/v1/traces', '/metrics'))).text();
      return Number(line.exec(text)?.[1] ?? 0);
    };
    const undecoded = /^spanscore_requests_rejected_total\{reason="saturated"\} (\d+)$/m;
    const decodedThenRefused = /^spanscore_spans_backpressure_total\{reason="saturated"\} (\d+)$/m;
    const [undecodedBefore, decodedBefore] = [
      await metric(undecoded),
      await metric(decodedThenRefused),
    ];
    for (let i = 0; i < 5; i++) {
      const response = await post(url, sdkAgentTrace('weather-lisbon', ['get_weather']));
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await response.text()).toMatch(/the span buffer holds \d+ of at most 12 spans/);
    }
    expect(await metric(undecoded)).toBe(undecodedBefore + 5);
    expect(await metric(decodedThenRefused)).toBe(decodedBefore);
  });

  it('a scoring thread too small for its heap ends serve with exit 1, naming the setting to raise', async () => {
    const cli = serve({ SPANSCORE_MEMORY_HEAP_MB: '8' });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(
      'the scoring thread ran out of its 8 MB heap: raise queue.memoryHeapMb (SPANSCORE_MEMORY_HEAP_MB), or lower assembly.maxBufferedSpans or results.maxResults',
    );
    expect(cli.stderr()).not.toContain('listening on');
  });
});

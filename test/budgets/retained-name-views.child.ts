/**
 * Run by `retained-name-views.test.ts` in a process of its own (`node --expose-gc --import tsx`;
 * argv: where the padded text goes, `attribute`, `span-name`, `service` or `held-service`, then
 * the driver,
 * `memory`, or `bullmq` with a Redis URL and a key prefix): starts the service, sends traces
 * whose one tool call is named `tool_NNNN_abcdef` followed by 1,000,000 spaces (a few KB
 * gzipped), in `gen_ai.tool.name` or in the span name (`execute_tool <name>`), or whose
 * `service.name` and `service.version` are padded so (`service`); the pipeline cuts or slices
 * the name and trims it, which in V8 is a view of all of it. It
 * waits until every trace is scored, and prints as JSON the heap the service still holds after a
 * full garbage collection, with the requests' own strings gone. `held-service`: one span a trace
 * whose parent never comes (the trace is held, not scored) and whose `service.name` is 256 and
 * more characters without spaces (cut at decoding, not trimmed); it prints the heap once every
 * request was accepted.
 */
import { gzipSync } from 'node:zlib';
import { loadConfig } from '../../src/config/load-config.js';
import { startService } from '../../src/server/start-service.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';

/** Traces sent: more than the per-service tool bound (30), so a bounded cache fills. */
const TRACES = 36;
/** Spaces after each tool name. */
const PADDING = 1_000_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const [where = 'attribute', driver = 'memory', redisUrl, prefix] = process.argv.slice(2);
const config = await loadConfig({
  env: {},
  overrides: {
    ...(driver === 'bullmq'
      ? { 'queue.driver': 'bullmq', 'queue.redisUrl': redisUrl!, 'queue.prefix': prefix! }
      : { 'queue.driver': 'memory' }),
    'receiver.port': 0,
    'receiver.host': '127.0.0.1',
    'assembly.settleMs': 50,
    'export.enabled': false,
    'export.logResults': false,
  },
});
const service = await startService(config, { receiver: true, workers: true }, { log: () => {} });
const origin = new URL(service.url!).origin;
const used = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** Posts trace `n`; its body is built here and dropped when the request is done. */
async function send(n: number): Promise<void> {
  const t = traceId(n);
  const name = `tool_${String(n).padStart(4, '0')}_abcdef` + ' '.repeat(PADDING);
  const service =
    where === 'held-service'
      ? { service: `svc_${String(n).padStart(4, '0')}_` + 'x'.repeat(PADDING) }
      : where === 'service'
        ? {
            service: `svc_${String(n).padStart(4, '0')}_abcdefghij` + ' '.repeat(PADDING),
            resource: {
              'service.version': `v_${String(n).padStart(4, '0')}_abcdefghij` + ' '.repeat(PADDING),
            },
          }
        : {};
  const body = gzipSync(
    JSON.stringify(
      otlpRequest([
        ...(where === 'held-service'
          ? []
          : [
              {
                traceId: t,
                spanId: spanId(n, 1),
                name: 'invoke_agent',
                startMs: 0,
                endMs: 100,
                ...service,
              },
            ]),
        {
          traceId: t,
          spanId: spanId(n, 2),
          parentSpanId: spanId(n, 1),
          name: where === 'span-name' ? `execute_tool ${name}` : 'execute_tool',
          ...service,
          startMs: 1,
          endMs: 2,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': where === 'attribute' ? name : 'lookup',
            'gen_ai.tool.call.id': 'c1',
          },
        },
      ]),
    ),
  );
  const response = await fetch(`${origin}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body,
  });
  if (response.status !== 200) throw new Error(`trace ${n}: ${response.status}`);
}

/** The state of trace `n`'s run record, if it has one. */
async function stateOf(n: number): Promise<string | undefined> {
  const response = await fetch(`${origin}/api/v1/traces/${traceId(n)}`);
  return response.ok ? ((await response.json()) as { state: string }).state : undefined;
}

const before = used();
for (let n = 1; n <= TRACES; n++) await send(n);
let scored = 0;
// Polls (the wait is not what is measured): each trace scored, in at most ~60 s.
for (let tries = 0; where !== 'held-service' && tries < 600 && scored < TRACES; tries++) {
  scored = 0;
  for (let n = 1; n <= TRACES; n++) if ((await stateOf(n)) === 'scored') scored++;
  if (scored < TRACES) await new Promise(resolve => setTimeout(resolve, 100));
}
const retainedBytes = used() - before;
await service.close();
process.stdout.write(JSON.stringify({ traces: TRACES, scored, padding: PADDING, retainedBytes }));

/**
 * The load generator of `npm run bench`'s end-to-end report, run as its own process:
 *
 * `tsx bench/load/load-generator.ts URL SECONDS CONNECTIONS OUT.json [SPANS_PER_SECOND] [sessions]`
 *
 * Sends OTLP/protobuf requests of 512 spans (20-span agent traces, made once by the real OTel SDK)
 * over `connections` keep-alive connections for `seconds`: closed loop (as fast as the receiver
 * answers), or open loop at a target rate in spans/s. Every pass over the
 * request templates rewrites the trace ids in place (a fresh random id per trace), so every trace
 * sent is new without encoding anything on the hot path. A 429 or 503 is counted and the
 * connection waits for its Retry-After. Writes counts and, per trace, when the receiver accepted
 * its last request (ms since the epoch) to `out.json`.
 */
import { randomFillSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Agent, request } from 'node:http';
import { agentSpans } from '../reading-bench.js';

const [url, secondsArg, connectionsArg, out, rateArg, sessionsArg] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: load-generator <url> <seconds> <connections> <out.json> [spans/s]');
  process.exit(2);
}
const seconds = Number(secondsArg ?? 60);
const connections = Number(connectionsArg ?? 8);
/** Target spans/s (open loop); 0: as fast as the receiver answers (closed loop). */
const rate = Number(rateArg ?? 0);
const SPANS_PER_REQUEST = 512;
const TEMPLATES = 50; // 50 × 512 spans = 1280 traces per pass

/** A request body and, per trace it holds, where that trace's id bytes sit and in how many requests the trace is. */
interface Template {
  body: Buffer;
  traces: Array<{ original: string; offsets: number[]; parts: number }>;
}

// `sessions`: every trace carries a session id (three to a session), as a chat app's do.
const batches = agentSpans(TEMPLATES, 7, false, sessionsArg === 'sessions');
const partsOf = new Map<string, number>();
for (const batch of batches)
  for (const id of new Set(batch.map(s => s.spanContext().traceId)))
    partsOf.set(id, (partsOf.get(id) ?? 0) + 1);
const templates: Template[] = batches.map(batch => {
  const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(batch)!);
  const ids = [...new Set(batch.map(s => s.spanContext().traceId))];
  return {
    body,
    traces: ids.map(id => {
      const needle = Buffer.from(id, 'hex');
      const offsets: number[] = [];
      for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 16))
        offsets.push(at);
      return { original: id, offsets, parts: partsOf.get(id)! };
    }),
  };
});

// Per trace: when its last request was accepted, once every request holding it was. A trace cut
// in half by the deadline never completes and is left out (it has no root, so no test case).
const lastAccepted = new Map<string, number>();
const partsAccepted = new Map<string, number>();
const counts = { requests: 0, accepted: 0, rejected429: 0, rejected503: 0, errors: 0 };
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const target = new URL(url);

/** One POST; resolves with the status and Retry-After once the response has been read. */
function post(body: Buffer): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length },
      },
      res => {
        res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: Number(res.headers['retry-after'] ?? 1),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
const deadline = Date.now() + seconds * 1000;

// One pass maps each template trace id to a fresh id; passes are handed out in order.
let pass = -1;
let passIds = new Map<string, Buffer>();
let next = 0;
function nextRequest(): { body: Buffer; ids: Array<{ id: string; parts: number }> } {
  const index = next++ % TEMPLATES;
  if (index === 0) {
    pass++;
    passIds = new Map();
  }
  const template = templates[index]!;
  const body = Buffer.from(template.body);
  const ids: Array<{ id: string; parts: number }> = [];
  for (const t of template.traces) {
    let id = passIds.get(t.original);
    if (!id) passIds.set(t.original, (id = randomFillSync(Buffer.alloc(16))));
    for (const at of t.offsets) id.copy(body, at);
    ids.push({ id: id.toString('hex'), parts: t.parts });
  }
  return { body, ids };
}

// Open loop when a rate is given: requests are started on a fixed schedule, whatever the answers.
let nextStartAt = Date.now();
const interval = rate > 0 ? (1000 * SPANS_PER_REQUEST) / rate : 0;

async function connection(): Promise<void> {
  while (Date.now() < deadline) {
    if (interval > 0) {
      const wait = nextStartAt - Date.now();
      nextStartAt = Math.max(nextStartAt, Date.now() - 1000) + interval;
      if (wait > 0) await new Promise(r => setTimeout(r, wait));
    }
    const { body, ids } = nextRequest();
    for (;;) {
      counts.requests++;
      try {
        const res = await post(body);
        if (res.status === 200) {
          counts.accepted++;
          const now = Date.now();
          for (const { id, parts } of ids) {
            const accepted = (partsAccepted.get(id) ?? 0) + 1;
            partsAccepted.set(id, accepted);
            if (accepted === parts) lastAccepted.set(id, now);
          }
          break;
        }
        if (res.status === 429 || res.status === 503) {
          if (res.status === 429) counts.rejected429++;
          else counts.rejected503++;
          const wait = res.retryAfter * 1000;
          await new Promise(r => setTimeout(r, Math.min(wait, 2000)));
          if (Date.now() >= deadline) break;
          continue; // the same request again, as an OTLP exporter would
        }
        counts.errors++;
        break;
      } catch {
        counts.errors++;
        break;
      }
    }
  }
}

const started = Date.now();
await Promise.all(Array.from({ length: connections }, connection));
const elapsed = (Date.now() - started) / 1000;
agent.destroy();
writeFileSync(
  out,
  JSON.stringify({
    ...counts,
    seconds: elapsed,
    passes: pass + 1,
    spansAccepted: counts.accepted * SPANS_PER_REQUEST,
    traces: Object.fromEntries(lastAccepted),
  }),
);

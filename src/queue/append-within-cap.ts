import type { SpanDigest } from '../ingest/span-digest.js';
import { isRootSpan } from '../normalize/trace-root.js';
import type { RedisSpanBuffer } from '../redis/redis-span-buffer.js';
import { logsState } from './trace-readiness.js';

/** What a request holds of one trace, as `RedisSpanBuffer.append` takes it. */
export interface TraceBatch {
  spans: SpanDigest[];
  rootSeen: boolean;
  logs: 'record' | 'writer' | undefined;
  cut?: number;
  whole?: SpanDigest[];
  refuse?: boolean;
}

/**
 * How often a batch is cut again when other requests filled its trace between two appends: each
 * round finds less room, so this is only reached when requests for one trace race at its cap.
 */
const MAX_CUT_ROUNDS = 8;

/**
 * What a request's batch for a trace is: its root and log flags read from its own spans; when it
 * is a cut of the request's spans of the trace (`of`), how many it left out and the whole, whose
 * digest the buffer keeps beside the cut's so that the request sent again is known as a copy.
 */
export function traceBatch(spans: SpanDigest[], cut?: { of: SpanDigest[] }): TraceBatch {
  const ids = new Set(spans.map(s => s.spanId));
  return {
    spans,
    rootSeen: spans.some(s => isRootSpan(s, ids)),
    logs: logsState(spans),
    ...(cut && { cut: cut.of.length - spans.length, whole: cut.of }),
  };
}

/**
 * Appends a request's traces to the Redis span buffer, keeping each trace's spans within
 * `maxSpansPerTrace` exactly, as the memory driver does: a batch that would take its trace past
 * the cap is refused by the buffer (`'+N'`), and its first `N` spans are appended in a second
 * round trip (the rest counted as dropped, and refused to the sender). That round trip happens
 * once in a trace's life, when it reaches its cap, so the common path stays one script call per
 * trace per request. Requests racing at a trace's cap cut again (each round finds less room) up to
 * `MAX_CUT_ROUNDS` times; past that, the request's spans of the trace are refused, and counted in
 * its `dropped` as any refused past the cap (one more script call, in that race only).
 * Returns, per trace, what `append` answered last (the scored-at time of a late trace, `'-'` when
 * nothing of it was kept, else `undefined`), and how many of the request's spans were refused past
 * the cap, in all and per trace (all of a `'-'` trace's, the cut part of the others): the rest were
 * kept (or, late without `keepLate`, counted late), which is what a late trace's count is.
 */
export async function appendWithinCap(
  buffer: RedisSpanBuffer,
  byTrace: ReadonlyMap<string, TraceBatch>,
  nowMs: number,
  keepLate: boolean,
): Promise<{
  late: Map<string, string | undefined>;
  refused: number;
  refusedOf: Map<string, number>;
}> {
  const late = await buffer.append(byTrace, nowMs, keepLate);
  // The batch last appended of each trace that was cut.
  const kept = new Map<string, TraceBatch>();
  let pending = cutsOf(late, byTrace);
  for (let round = 1; pending.size > 0; round++) {
    for (const [traceId, batch] of pending) kept.set(traceId, batch);
    if (round > MAX_CUT_ROUNDS) {
      // Refused, and counted in the trace's `dropped`, as a batch at a full trace is.
      for (const batch of pending.values()) batch.refuse = true;
      for (const [traceId, answer] of await buffer.append(pending, nowMs, keepLate))
        late.set(traceId, answer);
      break;
    }
    const again = await buffer.append(pending, nowMs, keepLate);
    for (const [traceId, answer] of again) late.set(traceId, answer);
    pending = cutsOf(again, pending);
  }
  let refused = 0;
  const refusedOf = new Map<string, number>();
  for (const [traceId, answer] of late) {
    const sent = byTrace.get(traceId)!.spans.length;
    const cut = kept.get(traceId);
    const of = answer === '-' ? sent : cut ? sent - cut.spans.length : 0;
    if (of === 0) continue;
    refusedOf.set(traceId, of);
    refused += of;
  }
  return { late, refused, refusedOf };
}

/** The traces answered `'+N'`: the request's spans of each cut to the first `N`. */
function cutsOf(
  answers: ReadonlyMap<string, string | undefined>,
  batches: ReadonlyMap<string, TraceBatch>,
): Map<string, TraceBatch> {
  const cuts = new Map<string, TraceBatch>();
  for (const [traceId, answer] of answers) {
    if (answer === undefined || answer[0] !== '+') continue;
    const batch = batches.get(traceId)!;
    const whole = batch.whole ?? batch.spans;
    cuts.set(traceId, traceBatch(whole.slice(0, Number(answer.slice(1))), { of: whole }));
  }
  return cuts;
}

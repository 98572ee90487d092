import { z } from 'zod';
import { positiveInt } from './number-fields.js';

/**
 * The `assembly` section: when a buffered trace is ready to score, and how many spans the buffer
 * and one trace may hold.
 */
export const assemblyConfigSchema = z
  .object({
    settleMs: z.coerce
      .number()
      .int()
      .min(0)
      .default(2000)
      .describe('A trace is scored once its root span ended and no span came for this long.'),
    maxWaitMs: positiveInt()
      .default(30_000)
      .describe('A trace is scored this long after its first span, whatever arrived by then.'),
    logsWaitMs: z.coerce
      .number()
      .int()
      .min(0)
      .default(5000)
      .describe(
        "A trace whose model spans come from an instrumentation that writes the calls as OTLP log records (OpenTelemetry's and Elastic's OpenAI instrumentations) and none of whose log records has arrived waits this much longer than `settleMs`, within `maxWaitMs`.",
      ),
    rescoreLateSpans: z
      .boolean()
      .default(false)
      .describe(
        'Score a trace again when spans arrive after it was scored (else they are counted and dropped). A trace gets at most 3 judge passes (its first scoring and 2 rescores: `MAX_JUDGE_PASSES_PER_TRACE`); a later rescore runs the deterministic scorers only, its LLM scorers `skipped` saying why and which verdict of its judge passes stands.',
      ),
    maxBufferedSpans: positiveInt()
      .default(25_000)
      .describe(
        'Memory driver: spans held (buffered or being scored; a kept GenAI log record counts as a span) before a request waits for room (`admissionWaitMs`) or is refused (429).',
      ),
    maxBufferedBytes: positiveInt()
      .default(256 * 1024 * 1024)
      .describe(
        "Memory driver: bytes of the held spans' attributes, kept as their records outside the JavaScript heap (its bound is `queue.memoryHeapMb`), before a request is refused (429) while any is held. A request's spans may carry up to the body limit of attributes; without this bound a few small compressed requests could hold gigabytes.",
      ),
    admissionWaitMs: z.coerce
      .number()
      .int()
      .min(0)
      .max(5000)
      .default(2000)
      .describe(
        "Memory driver: how long a request that finds the buffer full is held, waiting for room, before it is refused (429); 0: refused at once. Senders slow to the rate the service scores at instead of all waiting out a whole `Retry-After` second. Requests wait in arrival order (none overtakes those waiting), at most a quarter of `maxBufferedSpans` spans of them (a larger request alone) and 32 MiB of their attributes at once; past that, 429 at once. At most 5,000: well under exporters' timeout (10 s in the OpenTelemetry SDKs).",
      ),
    maxSpansPerTrace: positiveInt()
      .default(10_000)
      .describe(
        "Spans kept of one trace: past it a trace's further spans are refused (reported in the request's `partialSuccess`), the trace is scored with the spans it has, and its run record says it was truncated. One giant trace cannot fill the buffer for everyone.",
      ),
    maxServiceShare: z.coerce
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe(
        "Memory driver: the share of `maxBufferedSpans` one service (`service.name`) may hold while others send; past it that service's requests get 429 and the others' still 200. 1: no per-service limit.",
      ),
    unscoredTtlMs: positiveInt()
      .default(24 * 3_600_000)
      .describe(
        "BullMQ driver: how long a trace's spans stay in Redis while no worker has scored it. Far longer than any outage the receiver accepts traffic through (see `admission`); a trace still not scored then ends `expired`, with the reason, in its run record and `spanscore_traces_expired_total`.",
      ),
    maxQueuedTraces: positiveInt()
      .default(100_000)
      .describe(
        'BullMQ driver: traces waiting (or delayed, or taken by a worker and not yet scored and exported) before the receiver answers 429.',
      ),
  })
  .strict()
  .prefault({});

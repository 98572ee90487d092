import { z } from 'zod';
import { positiveInt } from './number-fields.js';

/**
 * `export.maxBatchBytes` by default: 64 KiB under the 4 MiB request body an OTel Collector's OTLP
 * receiver (and many backends) accept by default, for the request's headers and a proxy's margin.
 */
export const DEFAULT_BATCH_BYTES = 4 * 1024 * 1024 - 64 * 1024;
/**
 * The least `export.maxBatchBytes`: 64 KiB, above the largest evaluation span in protobuf (about
 * 55 KB within `RESULT_BOUNDS`), so that a bound set that low still sends every span within it.
 */
export const MIN_BATCH_BYTES = 64 * 1024;

/**
 * The `export` section: where evaluation spans (and result logs) go, batching, and how long a
 * failed export is retried.
 */
export const exportConfigSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        "Write evaluation spans into the tracing backend. Off: results go to the results store, metrics and files only. Also off, with a start-up line, when the endpoint would be this service's own receiver (nothing set and `serve` on port 4318).",
      ),
    url: z
      .string()
      .url()
      .optional()
      .describe(
        'The OTLP/HTTP traces endpoint. Default: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`.',
      ),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Headers of every export request. Default: `OTEL_EXPORTER_OTLP_(TRACES_)HEADERS`.'),
    protocol: z
      .enum(['http/protobuf', 'http/json'])
      .optional()
      .describe(
        'The OTLP/HTTP encoding. Default: `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`, else `http/protobuf`.',
      ),
    batchMaxSpans: positiveInt()
      .default(1024)
      .describe('Evaluation spans of concurrent traces go out in one request of up to this many.'),
    maxBatchBytes: z.coerce
      .number()
      .int()
      .min(MIN_BATCH_BYTES)
      .default(DEFAULT_BATCH_BYTES)
      .describe(
        "Bytes of one export request's body at most: a batch whose encoding is larger goes in several requests within it (encoded again only then); a span larger alone goes in a request of its own, whole. The default leaves 64 KiB under the 4 MiB most OTLP collectors accept.",
      ),
    batchDelayMs: z.coerce
      .number()
      .int()
      .min(0)
      .default(10)
      .describe('How long a batch of evaluation spans may wait for more.'),
    resultsFile: z
      .string()
      .min(1)
      .optional()
      .describe('Also append every result to this JSON Lines file (also `--results`).'),
    logResults: z.boolean().default(true).describe('Also log a line per result.'),
    retryMaxAgeMs: positiveInt()
      .default(3_600_000)
      .describe(
        "A failed export of evaluation spans is retried until the trace's job is this old, not a fixed number of times. The results are stored meanwhile.",
      ),
    retryMaxBackoffMs: positiveInt()
      .default(60_000)
      .describe('The exponential backoff between export retries stops growing here.'),
    logs: z
      .boolean()
      .default(false)
      .describe('Also emit each result as an OTLP log record (`gen_ai.evaluation.result`).'),
    logsUrl: z
      .string()
      .url()
      .optional()
      .describe(
        'The OTLP/HTTP logs endpoint. Default: `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/logs`.',
      ),
  })
  .strict()
  .prefault({});

import { z } from 'zod';
import { DEFAULT_DECODE_LIMITS, DEFAULT_MAX_BODY_BYTES } from './decode-limit-defaults.js';
import { port, positiveInt } from './number-fields.js';

/**
 * The `receiver` section: where `serve` listens for OTLP/HTTP, how large a request may be, and
 * the ingest tokens.
 */
export const receiverConfigSchema = z
  .object({
    port: port()
      .default(4318)
      .describe('The OTLP/HTTP port `serve` listens on (0: any free port).'),
    host: z
      .string()
      .default('0.0.0.0')
      .describe(
        'The address `serve` listens on. On a non-loopback address with no read token, results answer loopback clients only (see `results.public`).',
      ),
    maxBodyBytes: positiveInt()
      .default(DEFAULT_MAX_BODY_BYTES)
      .describe('Largest request body, compressed or not (413 above it; OTLP recommends 64 MiB).'),
    maxSpansPerRequest: positiveInt()
      .default(DEFAULT_DECODE_LIMITS.maxSpans)
      .describe(
        'Spans in one request, valid or not (413 above it, counted while decoding, so a small gzip body that unpacks to millions of empty spans is refused early). Also per request read from a file by `score`, `inspect` and `suite record`.',
      ),
    maxItemsPerRequest: positiveInt()
      .default(DEFAULT_DECODE_LIMITS.maxItems)
      .describe(
        'Nested items in one request: resources, scopes, spans, events, attributes and values inside list attributes (protobuf); objects, arrays, the other elements of arrays, and members of an object past its 64th (JSON, counted before parsing). 413 above it.',
      ),
    authTokens: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Ingest tokens: when any is set, `POST /v1/traces` (and `/v1/logs`, `/v1/metrics`) needs one of them as its bearer token (401 without, 403 with a read-only token). A list, so a token rotates without downtime: add the new one, move the agents over, remove the old one.',
      ),
    authToken: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The single token of earlier releases: an ingest token and, when `results.readTokens` is empty, the read token too (start-up says so).',
      ),
  })
  .strict()
  .prefault({});

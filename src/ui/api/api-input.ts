import { z } from 'zod';

/** The largest time a JavaScript `Date` holds (the year 275760), in Unix milliseconds. */
const MAX_TIME_MS = 8_640_000_000_000_000;

/** A query's point in time: Unix milliseconds (10 to 16 digits) or ISO 8601 with an offset. */
export const timeParam = z
  .union([
    z
      .string()
      .regex(/^\d{10,16}$/)
      .transform(Number),
    z.iso.datetime({ offset: true }).transform(s => Date.parse(s)),
  ])
  // Not before 1970 either: a negative time named no result, and the Redis store's stream reads
  // sent it as an id Redis refuses (a 500 where the query was at fault).
  .refine(ms => Number.isFinite(ms) && ms >= 0 && ms <= MAX_TIME_MS, {
    message: `expected a time from 1970 to ${MAX_TIME_MS} (Unix ms, the year 275760)`,
  });

/** A query's duration (`15m`, `1h`, `7d`), in milliseconds. */
export const durationParam = z
  .string()
  .regex(/^\d{1,12}(m|h|d)$/, 'expected a duration such as 15m, 1h or 7d')
  .transform(
    s =>
      Number(s.slice(0, -1)) *
      { m: 60_000, h: 3_600_000, d: 86_400_000 }[s.at(-1) as 'm' | 'h' | 'd'],
  )
  .refine(ms => ms <= MAX_TIME_MS, {
    message: 'expected a duration shorter than 100 million days',
  });

/** An error the API's error handler answers as a 400 with `{ error: message }`. */
export function badRequest(message: string): Error & { statusCode: 400 } {
  return Object.assign(new Error(message), { statusCode: 400 as const });
}

/**
 * A request's query or path parameters, parsed by `schema`; throws a {@link badRequest} naming
 * each bad or unknown parameter (`what`: "query" or "path") otherwise.
 */
export function parseApiInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: 'query' | 'path',
): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw badRequest(
    result.error.issues
      .map(issue =>
        issue.code === 'unrecognized_keys'
          ? `unknown ${what} parameter(s) ${issue.keys.map(k => `"${k}"`).join(', ')}`
          : `${what} parameter "${issue.path.join('.')}": ${issue.message}`,
      )
      .join('; '),
  );
}

/**
 * The window a query names: `from`/`to`, else the `window` (default 1 h) up to `nowMs`; a
 * {@link badRequest} when `from` is after `to`.
 */
export function queryWindow(
  q: { window?: number | undefined; from?: number | undefined; to?: number | undefined },
  nowMs: number,
): { from: number; to: number } {
  const to = q.to ?? nowMs;
  const from = q.from ?? to - (q.window ?? 3_600_000);
  if (from > to) throw badRequest('query: from is after to');
  return { from, to };
}

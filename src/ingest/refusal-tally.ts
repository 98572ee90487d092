/**
 * Why the receiver refused a request whole:
 * - `wrong_path`: an export sent to a path that is no OTLP endpoint (404; e.g. the doubled
 *   `/v1/traces/v1/traces`), a POST or gRPC request only;
 * - `token`: no, an unknown or a read-only bearer token (401, 403);
 * - `content_type`: a content type or encoding other than protobuf or JSON, gzip or none (415);
 * - `size`: a body past `receiver.maxBodyBytes` before or after decompression, or more spans or
 *   nested items than a request may hold (413);
 * - `decode`: a body that is not an OTLP request: bad JSON, protobuf or gzip (400);
 * - `rate`: the span buffer was full (429 with Retry-After: the exporter retries);
 * - `unavailable`: the span store could not be reached, or the receiver was stopping (503 with
 *   Retry-After: the exporter retries).
 */
export type RefusalReason =
  'wrong_path' | 'token' | 'content_type' | 'size' | 'decode' | 'rate' | 'unavailable';

/** Every {@link RefusalReason}: a tally holds these and no others. */
export const REFUSAL_REASONS: readonly RefusalReason[] = [
  'wrong_path',
  'token',
  'content_type',
  'size',
  'decode',
  'rate',
  'unavailable',
];

/** The requests refused for one reason in a time range, as `GET /api/v1/summary` lists them. */
export interface RefusedRequests {
  reason: RefusalReason;
  count: number;
  /** When the latest of them was refused, in Unix milliseconds. */
  lastAtUnixMs: number;
  /**
   * What the receiver answered the latest of them (its error body's message), which says what to
   * fix. Untrusted text: it quotes the request (its path, its content type, a parser's error), so
   * it is cut at {@link MAX_FIX_CHARS} characters with control characters replaced, and a page
   * must show it as text.
   */
  fix: string;
}

/**
 * Counts of refused requests, by reason and minute, over a bounded time. Its functions need no
 * `this`: they may be passed on alone.
 */
export interface RefusalTally {
  /** Counts one refused request, with the message the receiver answered it. */
  record: (reason: RefusalReason, message: string) => void;
  /**
   * The reasons with refusals in `[fromUnixMs, toUnixMs]` (to the minute; at most the last
   * `horizonMs`), the latest first.
   */
  refused: (fromUnixMs: number, toUnixMs: number) => RefusedRequests[];
}

/** Options of {@link createRefusalTally}. */
export interface RefusalTallyOptions {
  /** How long refusals are counted for. @defaultValue 24 h: the page's longest window */
  horizonMs?: number;
  now?: () => number;
}

/** The longest `fix` kept: enough for the receiver's longest hint, bounded against any request. */
export const MAX_FIX_CHARS = 400;

const MINUTE_MS = 60_000;
/** The longest message kept as it came, to tell a repeat of it. */
const MAX_KEPT_MESSAGE = 4096;

/** One minute's refusals of one reason. */
interface Bucket {
  minute: number;
  count: number;
  lastAt: number;
  fix: string;
  /** The order of its latest refusal among all recorded: breaks ties of `lastAt` (one ms). */
  seq: number;
}

/**
 * An in-process tally of the requests the receiver refused whole, for the results page to say
 * what was refused and what to fix when no trace arrives. Bounded whatever the traffic: per
 * reason (a fixed set) one bucket a minute over `horizonMs`, each holding its latest message cut
 * at {@link MAX_FIX_CHARS} characters. Pure: the clock is `now`; no I/O.
 */
export function createRefusalTally(options: RefusalTallyOptions = {}): RefusalTally {
  const horizonMs = options.horizonMs ?? 24 * 3_600_000;
  const now = options.now ?? Date.now;
  const byReason = new Map<RefusalReason, Bucket[]>(REFUSAL_REASONS.map(r => [r, []]));
  // Per reason, the latest message and its bounded text: a burst of the same refusal (a full
  // buffer answers every request alike) bounds it once.
  const lastText = new Map<RefusalReason, { message: string | undefined; fix: string }>();
  let seq = 0;

  const prune = (buckets: Bucket[], at: number): void => {
    let stale = 0;
    while (stale < buckets.length && buckets[stale]!.minute + MINUTE_MS <= at - horizonMs) stale++;
    if (stale > 0) buckets.splice(0, stale);
  };

  return {
    record(reason, message) {
      const buckets = byReason.get(reason);
      if (!buckets) return; // not a reason of the set: nothing grows past it
      const at = now();
      const minute = at - (at % MINUTE_MS);
      seq++;
      prune(buckets, at);
      let text = lastText.get(reason);
      if (text?.message !== message) {
        // Only a short message is kept to compare: a long one is bounded again each time.
        text = {
          message: message.length <= MAX_KEPT_MESSAGE ? message : undefined,
          fix: boundedText(message),
        };
        lastText.set(reason, text);
      }
      const last = buckets.at(-1);
      // A clock set back lands in the latest minute: the buckets stay in order.
      if (last && last.minute >= minute) {
        last.count++;
        last.lastAt = Math.max(last.lastAt, at);
        last.fix = text.fix;
        last.seq = seq;
      } else buckets.push({ minute, count: 1, lastAt: at, fix: text.fix, seq });
    },
    refused(fromUnixMs, toUnixMs) {
      const out: RefusedRequests[] = [];
      const order = new Map<RefusalReason, number>();
      const at = now();
      for (const [reason, buckets] of byReason) {
        prune(buckets, at);
        let count = 0;
        let latest: Bucket | undefined;
        for (const b of buckets) {
          if (b.minute + MINUTE_MS <= fromUnixMs || b.minute > toUnixMs) continue;
          count += b.count;
          if (!latest || b.lastAt >= latest.lastAt) latest = b;
        }
        if (latest) out.push({ reason, count, lastAtUnixMs: latest.lastAt, fix: latest.fix });
        if (latest) order.set(reason, latest.seq);
      }
      // The latest first; refusals of one millisecond in the order they came, the last first.
      return out.sort(
        (a, b) => b.lastAtUnixMs - a.lastAtUnixMs || order.get(b.reason)! - order.get(a.reason)!,
      );
    },
  };
}

// C0 and C1 controls and the bidirectional overrides: text that could rearrange or hide what is
// shown around it.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with unsafe characters as spaces, cut at {@link MAX_FIX_CHARS} (`…` marks a cut). */
function boundedText(text: string): string {
  const head = text.length > MAX_FIX_CHARS * 2 ? text.slice(0, MAX_FIX_CHARS * 2) : text;
  const clean = head.replace(UNSAFE_CHARS, ' ');
  if (clean.length <= MAX_FIX_CHARS) return clean;
  let cut = clean.slice(0, MAX_FIX_CHARS - 1);
  // Never half a surrogate pair.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

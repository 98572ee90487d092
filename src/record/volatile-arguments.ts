import { setOwnKey } from '../ingest/set-own-key.js';

/**
 * Which recorded arguments are volatile: values that differ on every run of the same agent, so an
 * expectation holding them would fail the next run for the wrong reason. The rules, in order:
 *
 * 1. A key named like an identifier or a moment: `id`, `uuid`, `guid`, `nonce`, `timestamp`, `ts`,
 *    and any key ending in `request_id`, `session_id`, `trace_id`, `span_id`, `call_id`,
 *    `created_at`, `updated_at` (case and `_`/`-` separators ignored: `requestId` counts).
 * 2. A UUID (`8-4-4-4-12` hex digits).
 * 3. An ISO 8601 date-time with a time of day (`2026-11-25T14:03:00Z`); a bare date
 *    (`2026-12-01`) is kept: it is usually what the user asked for.
 * 4. A Unix time in milliseconds (a 13-digit integer between 2001 and 2286) or seconds (a
 *    10-digit integer from 2001 on), as a number or a string.
 * 5. A long opaque token: 24 or more characters of hex, or of letters and digits mixing both,
 *    with no space (`call_8Hq2…`, `req_01J9…`, a hash).
 *
 * Objects are walked key by key; a volatile value or key is left out with its path
 * (`order.createdAt`). An array holding a volatile value is left out whole. A volatile argument
 * that is not an object leaves the call without arguments.
 */

const VOLATILE_KEYS = new Set(['id', 'uuid', 'guid', 'nonce', 'timestamp', 'ts']);
const VOLATILE_KEY_ENDINGS = [
  'requestid',
  'sessionid',
  'traceid',
  'spanid',
  'callid',
  'createdat',
  'updatedat',
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const HEX_TOKEN = /^[0-9a-f]{24,}$/i;
const OPAQUE_TOKEN = /^(?=[\w-]*\d)(?=[\w-]*[a-z])[\w-]{24,}$/i;
const MS_2001 = 978_307_200_000;
const MS_2286 = 9_999_999_999_999;

/** Whether a key names an identifier or a moment (rule 1). */
export function isVolatileKey(key: string): boolean {
  const folded = key.toLowerCase().replace(/[_-]/g, '');
  return VOLATILE_KEYS.has(folded) || VOLATILE_KEY_ENDINGS.some(end => folded.endsWith(end));
}

/** Whether a scalar looks different on every run (rules 2–5). */
export function isVolatileValue(value: unknown): boolean {
  if (typeof value === 'number')
    return (
      Number.isInteger(value) &&
      ((value >= MS_2001 && value <= MS_2286) || (value >= MS_2001 / 1000 && value < 1e10))
    );
  if (typeof value !== 'string') return false;
  const text = value.trim();
  if (/^\d{10}$|^\d{13}$/.test(text)) return isVolatileValue(Number(text));
  return UUID.test(text) || DATE_TIME.test(text) || HEX_TOKEN.test(text) || OPAQUE_TOKEN.test(text);
}

/** Recorded arguments with the volatile parts left out, and their paths. */
export interface StableArguments {
  /** `undefined` when the arguments are volatile as a whole (or were not recorded). */
  args: unknown;
  leftOut: string[];
}

/** Leaves the volatile parts out of one call's recorded arguments (see the rules above). */
export function stableArguments(args: unknown, path = ''): StableArguments {
  if (args === undefined) return { args: undefined, leftOut: [] };
  if (Array.isArray(args)) {
    const inner = args.map((v, i) => stableArguments(v, `${path}[${i}]`));
    return inner.some(r => r.leftOut.length)
      ? { args: undefined, leftOut: [path || '(arguments)'] }
      : { args, leftOut: [] };
  }
  if (args !== null && typeof args === 'object') {
    const kept: Record<string, unknown> = {};
    const leftOut: string[] = [];
    for (const [key, value] of Object.entries(args)) {
      const at = path ? `${path}.${key}` : key;
      if (isVolatileKey(key)) {
        leftOut.push(at);
        continue;
      }
      const inner = stableArguments(value, at);
      leftOut.push(...inner.leftOut);
      if (inner.args !== undefined) setOwnKey(kept, key, inner.args);
    }
    return { args: kept, leftOut };
  }
  return isVolatileValue(args)
    ? { args: undefined, leftOut: [path || '(arguments)'] }
    : { args, leftOut: [] };
}

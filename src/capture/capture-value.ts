/** Keys whose values are never recorded: tokens, passwords, API keys, credentials, cookies. */
export const DEFAULT_REDACTED_KEYS: readonly RegExp[] = [
  /token/i,
  /passw(or)?d/i,
  /secret/i,
  /api[-_]?key/i,
  /authori[sz]ation/i,
  /cookie/i,
  /credential/i,
  /private[-_]?key/i,
  /session[-_]?id/i,
];

/** How arguments and results are turned into an attribute value. */
export interface CaptureOptions {
  /** Longest attribute value, in UTF-16 code units; longer JSON is cut and marked. */
  maxLength: number;
  /** Keys (at any depth) whose values are replaced by `[REDACTED]`. */
  redactKeys: readonly (string | RegExp)[];
}

const MAX_DEPTH = 16;

/**
 * Serializes a captured argument or result for a span attribute: JSON, with values of
 * secret-looking keys replaced by `[REDACTED]`, functions and symbols dropped, circular references
 * and depth past 16 marked, bigints as strings, and the text cut at `maxLength` with a marker
 * saying how much was left out. Never throws.
 */
export function captureValue(value: unknown, options: CaptureOptions): string {
  let json: string;
  try {
    json =
      typeof value === 'string'
        ? value
        : (JSON.stringify(sanitize(value, options.redactKeys, new WeakSet(), 0)) ?? 'undefined');
  } catch (error) {
    json = `[unserializable: ${(error as Error).message}]`;
  }
  if (json.length <= options.maxLength) return json;
  const cut = json.length - options.maxLength;
  return `${json.slice(0, options.maxLength)}…[${cut} more characters]`;
}

function sanitize(
  value: unknown,
  redact: readonly (string | RegExp)[],
  seen: WeakSet<object>,
  depth: number,
): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (value instanceof Date) return value.toISOString();
    if (value instanceof Map) return sanitize(Object.fromEntries(value), redact, seen, depth);
    if (value instanceof Set) return sanitize([...value], redact, seen, depth);
    if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
    if (value instanceof Error) return { name: value.name, message: value.message };
    if (Array.isArray(value)) return value.map(v => sanitize(v, redact, seen, depth + 1) ?? null);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      out[key] = isRedacted(key, redact) ? '[REDACTED]' : sanitize(v, redact, seen, depth + 1);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function isRedacted(key: string, redact: readonly (string | RegExp)[]): boolean {
  return redact.some(r =>
    typeof r === 'string' ? r.toLowerCase() === key.toLowerCase() : r.test(key),
  );
}

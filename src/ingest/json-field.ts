// Reading parsed OTLP/JSON leniently, shared by the trace and log decoders.

/**
 * The first of `names` that `obj` has (not `undefined`): one field under each spelling emitters
 * use (`traceId`, `trace_id`).
 */
export function field(obj: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) {
    const v = obj[name];
    if (v !== undefined) return v;
  }
  return undefined;
}

/** A JSON object: not `null`, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as an error message names what it got: `the string "abc"`, `number 3`, `an array`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  return `an ${typeof value}`;
}

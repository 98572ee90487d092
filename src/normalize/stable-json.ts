/**
 * JSON with object keys sorted, so equal values give equal strings. A value nested too deep for
 * the stack (arguments are untrusted: JSON.parse reads any depth) gives a text of its own, equal to
 * no other: such calls are never taken for repeats or duplicates of each other.
 */
export function stableJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, v: unknown) => {
        if (typeof v === 'bigint') return v.toString();
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          return Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
              a < b ? -1 : a > b ? 1 : 0,
            ),
          );
        }
        return v;
      }) ?? 'undefined'
    );
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `\u0000too deep ${++tooDeep}`;
  }
}

let tooDeep = 0;

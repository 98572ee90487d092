import type { ToolCall } from '../normalize/tool-call.js';
import { isVolatileKey, isVolatileValue, stableArguments } from '../record/volatile-arguments.js';

/** Options of `toMatchToolSnapshot` and `toMatchInlineToolSnapshot`. */
export interface ToolSnapshotOptions {
  /**
   * What the snapshot keeps of each call's arguments. `subset` (default): the stable ones, volatile
   * arguments left out (the rules of `spanscore suite record`), so a run whose request id or time
   * differs still matches. `exact`: every argument, volatile values written as `<volatile>`.
   * `ignore`: tool names only.
   */
  args?: 'exact' | 'subset' | 'ignore';
  /** Argument paths (`passenger.name`, `items.0.sku`) written as `<masked>` in any call. */
  mask?: readonly string[];
}

/**
 * A run's tool sequence as snapshot text: one call per line, `name(arguments as JSON)`, with
 * `✗ error` after a failed call. Deterministic: object keys sorted, volatile and masked values
 * replaced as `options` say.
 */
export function toolSnapshot(
  calls: readonly ToolCall[],
  options: ToolSnapshotOptions = {},
): string {
  const mode = options.args ?? 'subset';
  if (!['exact', 'subset', 'ignore'].includes(mode))
    throw new TypeError(`args must be 'exact', 'subset' or 'ignore', got ${JSON.stringify(mode)}`);
  const masks = (options.mask ?? []).map(path => path.split('.'));
  const lines = calls.map(call => {
    let args = '';
    if (mode !== 'ignore' && call.arguments !== undefined) {
      const kept =
        mode === 'subset' ? stableArguments(call.arguments).args : markVolatile(call.arguments);
      if (kept !== undefined) args = JSON.stringify(sorted(masked(kept, masks, [])));
    }
    return `${call.name}(${args})${call.status === 'error' ? ` ✗ ${call.error ?? 'error'}` : ''}`;
  });
  return lines.length ? `\n${lines.join('\n')}\n` : '\n(no tool calls)\n';
}

function markVolatile(value: unknown, key?: string): unknown {
  if (key !== undefined && isVolatileKey(key)) return '<volatile>';
  if (Array.isArray(value)) return value.map(v => markVolatile(v));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markVolatile(v, k)]));
  return isVolatileValue(value) ? '<volatile>' : value;
}

function masked(value: unknown, masks: string[][], path: string[]): unknown {
  if (masks.some(m => m.length === path.length && m.every((p, i) => p === path[i])))
    return '<masked>';
  if (Array.isArray(value)) return value.map((v, i) => masked(v, masks, [...path, String(i)]));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, masked(v, masks, [...path, k])]),
    );
  return value;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map(k => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}

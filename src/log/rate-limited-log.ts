/** A log line that says how many like it were held back. */
export type RateLimitedLog = (key: string, line: () => string) => void;

/**
 * A logger that writes at most one line per `key` per `intervalMs`, for what a hostile or
 * misconfigured sender can repeat thousands of times a second (a bad request, a failed export, an
 * unknown test case id). The first line of a key is written at once; the lines held back in an
 * interval are counted and the next line written says how many (`(and 41 more like it)`).
 * `line` is only called when a line is written. Keys are forgotten after an interval without a
 * line; at most `maxKeys` are remembered (past that, the oldest is dropped).
 */
export function rateLimitedLog(
  write: (line: string) => void,
  intervalMs = 60_000,
  now: () => number = Date.now,
  maxKeys = 1_000,
): RateLimitedLog {
  const seen = new Map<string, { at: number; held: number }>();
  return (key, line) => {
    const t = now();
    const entry = seen.get(key);
    if (entry && t - entry.at < intervalMs) {
      entry.held++;
      return;
    }
    const held = entry?.held ?? 0;
    seen.delete(key);
    seen.set(key, { at: t, held: 0 });
    if (seen.size > maxKeys) seen.delete(seen.keys().next().value!);
    write(held > 0 ? `${line()} (and ${held} more like it)` : line());
  };
}

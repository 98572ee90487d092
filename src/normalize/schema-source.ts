/**
 * Where the JSON Schema a call's arguments were checked against came from:
 * - `trace`: offered to the model in the call's own trace;
 * - `learned`: the trace records none for the tool, and the same service (and `service.version`,
 *   when the trace has one) offered this one in trace `traceId`, seen at `seenAtUnixMs`, `ageMs`
 *   before the call was checked. Another sender's input: a verdict resting on it says so.
 * - `config`: given by the operator in `toolHealth.schemas` (`file`).
 */
export type SchemaSource =
  | { kind: 'trace' }
  | { kind: 'learned'; traceId: string; seenAtUnixMs: number; ageMs: number }
  | { kind: 'config'; file: string };

/** A schema from outside the trace, for calls whose trace offers none for their tool. */
export interface FallbackSchema {
  /** The tool's parameters as JSON Schema (checked as any offered schema is: untrusted). */
  schema: unknown;
  source: Exclude<SchemaSource, { kind: 'trace' }>;
}

/**
 * The schemas a trace's calls fall back to, by folded tool name (`toolNames(name).folded`): what
 * the scoring loop looked up for the trace's service and version before scoring it.
 */
export type FallbackSchemas = ReadonlyMap<string, FallbackSchema>;

/**
 * A source for people: `schema seen in trace 4bf92f35…, 3 min ago`,
 * `schema given in config (schemas/weather.json)`, `the trace's own schema`.
 */
export function describeSchemaSource(source: SchemaSource): string {
  if (source.kind === 'trace') return "the trace's own schema";
  if (source.kind === 'config') return `schema given in config (${source.file})`;
  return `schema seen in trace ${source.traceId.slice(0, 8)}…, ${agoText(source.ageMs)}`;
}

/** `just now`, `40 s ago`, `3 min ago`, `5 h ago`. */
export function agoText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

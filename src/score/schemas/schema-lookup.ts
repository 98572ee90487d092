import { LRUCache } from 'lru-cache';
import { UNKNOWN_SERVICE } from '../../ingest/service-name-of.js';
import { toolNames } from '../../normalize/canonical-tool-name.js';
import type {
  FallbackSchema,
  FallbackSchemas,
  SchemaSource,
} from '../../normalize/schema-source.js';
import { findGivenSchema, type GivenSchemas } from './given-schemas.js';
import { learnable, type LearnedSchema, type SchemaRegistry } from './schema-registry.js';

/**
 * Finds schemas for the tools (`names`, as called) of a trace of `service` and `version` whose
 * trace records none (see `toolsWithoutSchema`): what `scoreTrace` sets on the trace before
 * scoring it. Never rejects: a store that cannot answer now gives none.
 */
export type SchemaLookup = (
  service: string,
  version: string,
  names: readonly string[],
) => Promise<FallbackSchemas>;

/** What a process looks schemas up in. */
export interface SchemaLookupOptions {
  /** Schemas given in `toolHealth.schemas`: they win over learned ones (the operator's word). */
  given: GivenSchemas;
  /** Where learned schemas are kept; absent when learning is off. */
  learned?: SchemaRegistry | undefined;
  /** The clock of learned answers' ages and of the cache's expiry. @defaultValue `Date.now` */
  now?: () => number;
  /** A store that failed to answer (logged by the caller). */
  onError?: (error: unknown) => void;
  /**
   * How long an answer of the store is reused in this process, found or not: traces of a service
   * whose instrumentation records no schemas all look up the same tools. @defaultValue 5000
   */
  cacheMs?: number;
}

/**
 * Answers of the store kept per process (each counted with its schema text, so that answers of
 * large schemas cannot hold more than the character bound), and characters of parsed text kept.
 */
const CACHED_ANSWERS = 5_000;
const CACHED_ANSWER_CHARS = 4 * 1024 * 1024;
const PARSED_CHARS = 4 * 1024 * 1024;

/**
 * A {@link SchemaLookup}: the config's schema for a tool first, then the latest learned one for
 * the service (and version, when the trace has one). Learned answers are reused for `cacheMs` and
 * their texts parsed once (bounded: {@link CACHED_ANSWERS} answers and
 * {@link CACHED_ANSWER_CHARS} characters of them, {@link PARSED_CHARS} characters parsed), so a
 * stream of traces without schemas costs the store one read per tool every few seconds, and the
 * validator finds the same schema object again.
 */
export function createSchemaLookup(options: SchemaLookupOptions): SchemaLookup & {
  /** Remembers what this process just learned, so that its next traces see it at once. */
  remember(service: string, version: string, schemas: readonly LearnedSchema[]): void;
} {
  const now = options.now ?? Date.now;
  const cacheMs = options.cacheMs ?? 5000;
  const answers = new LRUCache<string, { found: LearnedSchema | null }>({
    max: CACHED_ANSWERS,
    maxSize: CACHED_ANSWER_CHARS,
    sizeCalculation: (answer, key) => key.length + 64 + (answer.found?.text.length ?? 0),
    ttl: Math.max(1, cacheMs),
    ttlAutopurge: false,
    // Answers expire by the lookup's own clock, read at each use (not lru-cache's performance.now,
    // cached for a millisecond): what a test or a caller's clock says is what the cache sees.
    perf: { now },
    ttlResolution: 0,
  });
  const parsed = new LRUCache<string, { schema: unknown }>({
    maxSize: PARSED_CHARS,
    sizeCalculation: (_v, text) => Math.max(1, text.length),
  });
  const keyOf = (service: string, version: string, tool: string) =>
    JSON.stringify([service, version, tool]);
  const parse = (text: string): unknown => {
    let entry = parsed.get(text);
    if (!entry) {
      let schema: unknown;
      try {
        schema = Object.freeze(JSON.parse(text));
      } catch {
        schema = undefined;
      }
      parsed.set(text, (entry = { schema }));
    }
    return entry.schema;
  };

  const lookup = async (
    service: string,
    version: string,
    names: readonly string[],
  ): Promise<FallbackSchemas> => {
    const out = new Map<string, FallbackSchema>();
    const wanted: string[] = [];
    for (const name of names) {
      const tool = toolNames(name).folded;
      const given = findGivenSchema(options.given, service, version, tool);
      if (given) out.set(tool, given);
      // Nothing is learned for an unnamed service, or past a name's bound: not asked.
      else if (options.learned && service !== UNKNOWN_SERVICE && learnable(service, version, tool))
        wanted.push(tool);
    }
    if (wanted.length === 0) return out;
    const at = now();
    // Each tool's answer read once, here or from the registry below: a cached answer read again
    // after the registry's await could have expired meanwhile (with a small `cacheMs`, under load),
    // and the schema just learned would be lost to this lookup.
    const answered = new Array<LearnedSchema | null | undefined>(wanted.length);
    const missing: string[] = [];
    for (let i = 0; i < wanted.length; i++) {
      answered[i] = answers.get(keyOf(service, version, wanted[i]!))?.found;
      if (answered[i] === undefined) missing.push(wanted[i]!);
    }
    if (missing.length)
      try {
        const found = await options.learned!.get(service, version, missing, at);
        for (let i = 0; i < wanted.length; i++) {
          if (answered[i] !== undefined) continue;
          const tool = wanted[i]!;
          const answer = found.get(tool) ?? null;
          answered[i] = answer;
          answers.set(keyOf(service, version, tool), { found: answer });
        }
      } catch (error) {
        options.onError?.(error);
      }
    for (let i = 0; i < wanted.length; i++) {
      const found = answered[i];
      const tool = wanted[i]!;
      if (!found) continue;
      const schema = parse(found.text);
      if (schema === undefined) continue;
      const source: SchemaSource = {
        kind: 'learned',
        traceId: found.traceId,
        seenAtUnixMs: found.seenAtUnixMs,
        ageMs: Math.max(0, at - found.seenAtUnixMs),
      };
      out.set(tool, { schema, source });
    }
    return out;
  };
  return Object.assign(lookup, {
    remember(service: string, version: string, schemas: readonly LearnedSchema[]) {
      for (const s of schemas) {
        answers.set(keyOf(service, '', s.tool), { found: s });
        if (version !== '') answers.set(keyOf(service, version, s.tool), { found: s });
      }
    },
  });
}

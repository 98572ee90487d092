import { SCHEMA_LIMITS } from '../../normalize/prepare-schema.js';

/**
 * The JSON Schemas services offered their models in recent traffic, kept so that a call whose
 * trace records none can be checked against the latest one its service offered for the tool. Kept
 * where the driver keeps results: in this process (memory driver), or in Redis (BullMQ driver),
 * where every receiver and worker process reads the same entries.
 *
 * Each service has slots: per tool, one for the latest schema any version of it offered, and one
 * per `service.version` that offered one (a trace with a version reads its own version's slot, a
 * trace without one the any-version slot). What is kept is bounded in count and bytes whatever
 * senders send ({@link SCHEMA_REGISTRY_LIMITS}): past a bound, the entries seen longest ago go.
 */
export interface SchemaRegistry {
  readonly name: 'memory' | 'redis';
  /**
   * The latest schema learned for each of `tools` (folded names, see `toolNames`) of `service`
   * and `version` (`''`: any version), seen within the TTL, by folded name; tools without one are
   * absent.
   */
  get(
    service: string,
    version: string,
    tools: readonly string[],
    nowUnixMs: number,
  ): Promise<Map<string, LearnedSchema>>;
  /**
   * Records the schemas one trace of `service` and `version` offered (each within
   * {@link SCHEMA_REGISTRY_LIMITS}: callers check with {@link learnable}); each replaces what its
   * slots held, then the service's bounds evict the entries seen longest ago, and the services'
   * bound the services seen longest ago.
   */
  put(
    service: string,
    version: string,
    schemas: readonly LearnedSchema[],
    nowUnixMs: number,
  ): Promise<void>;
  /**
   * The latest schema of each tool of `services` (their any-version slots), without the schema
   * texts: what `/api/v1/tools` shows as each tool's learned schema.
   */
  latest(services: readonly string[], nowUnixMs: number): Promise<LearnedSchemaEntry[]>;
}

/** A schema one trace offered for one tool, as the registry keeps it. */
export interface LearnedSchema {
  /** The tool's name folded (`toolNames(name).folded`): what lookups match. */
  tool: string;
  /** The tool's name as offered. */
  name: string;
  /** The schema as JSON text, at most {@link SCHEMA_REGISTRY_LIMITS.maxSchemaChars}. */
  text: string;
  /** The trace that offered it, and when it was seen there. */
  traceId: string;
  seenAtUnixMs: number;
}

/** One service's learned schema of one tool, without its text. */
export type LearnedSchemaEntry = Omit<LearnedSchema, 'text'> & { service: string };

/** What the registry keeps, at most: each bound holds against any traffic. */
export const SCHEMA_REGISTRY_LIMITS = {
  /** Services with learned schemas; past it, the service seen longest ago is dropped. */
  maxServices: 64,
  /** Slots per service (a tool's any-version slot and one per version). */
  maxEntriesPerService: 64,
  /** Characters of schema text per service, every slot counted. */
  maxCharsPerService: 128 * 1024,
  /** Characters of one schema's JSON text: a larger one is not learned (it could not be checked). */
  maxSchemaChars: SCHEMA_LIMITS.maxChars,
  /** Schemas learned from one trace (the first offered, each tool once). */
  maxSchemasPerTrace: 32,
  /** Characters of a service name, version or tool name a schema is learned for, at most. */
  maxNameChars: 256,
  /** How long a learned schema is "recent": entries not seen again for this long are dropped. */
  ttlMs: 24 * 3_600_000,
} as const;

/** Narrower bounds than {@link SCHEMA_REGISTRY_LIMITS} (tests). */
export type SchemaRegistryLimits = Partial<Record<keyof typeof SCHEMA_REGISTRY_LIMITS, number>>;

// Separates a slot's parts: no service version or folded tool name holds it.
const SEP = '\u001f';

/** The slot of a tool's schema: the any-version one (`version` `''`), or one version's. */
export function slotOf(version: string, tool: string): string {
  return version === '' ? `*${SEP}${tool}` : `v${SEP}${version}${SEP}${tool}`;
}

/** The folded tool name of an any-version slot, else `undefined`. */
export function toolOfAnyVersionSlot(slot: string): string | undefined {
  return slot.startsWith(`*${SEP}`) ? slot.slice(2) : undefined;
}

/**
 * Whether schemas can be learned for this service, version and tool at all: names within
 * {@link SCHEMA_REGISTRY_LIMITS.maxNameChars} and free of the slot separator.
 */
export function learnable(...names: readonly string[]): boolean {
  return names.every(n => n.length <= SCHEMA_REGISTRY_LIMITS.maxNameChars && !n.includes(SEP));
}

import type { Config } from '../config/config-schema.js';
import { resolveAccess } from '../config/resolve-access.js';
import { rateLimitedLog } from '../log/rate-limited-log.js';
import type { SchemaSource } from '../normalize/schema-source.js';
import type { ResultSink } from '../score/result-sink.js';
import type { GivenSchemas } from '../score/schemas/given-schemas.js';
import { createSchemaLearningSink } from '../score/schemas/schema-learning-sink.js';
import { createSchemaLookup, type SchemaLookup } from '../score/schemas/schema-lookup.js';
import type { SchemaRegistry } from '../score/schemas/schema-registry.js';

/** How this process finds schemas for calls whose trace records none, and learns them. */
export interface SchemaLearning {
  /** For `scoreTrace`; absent when there is nothing to look in (learning off, none given). */
  lookup: SchemaLookup | undefined;
  /** The sink that learns each scored trace's schemas; absent when learning is off. */
  sink: ResultSink | undefined;
  /** Whether schemas are learned and used (`toolHealth.learnSchemas`, and for `token`, access). */
  learning: boolean;
  /** What start-up says about it. */
  line: string;
}

/**
 * Whether this process learns schemas (`toolHealth.learnSchemas`): `on`; `token` when the
 * receiver requires an ingest token (it then refuses every request without one, so every trace
 * came from a token holder); never with `off`. Pure.
 */
export function learnsSchemas(config: Readonly<Config>): boolean {
  const mode = config.toolHealth.learnSchemas;
  if (mode === 'off') return false;
  return mode === 'on' || resolveAccess(config).ingestTokens.length > 0;
}

/**
 * The schema lookup and learning sink of a process that scores, as the config says: schemas
 * given in `toolHealth.schemas` first, then (when learning) the registry the driver keeps.
 */
export function createSchemaLearning(
  config: Readonly<Config>,
  registry: SchemaRegistry,
  given: GivenSchemas,
  log: (line: string) => void,
): SchemaLearning {
  const learning = learnsSchemas(config);
  const failures = rateLimitedLog(log);
  const onError = (what: string) => (error: unknown) =>
    failures(
      `schemas:${what}`,
      () =>
        `spanscore: learned schemas: ${what} failed: ${(error as Error).message} (calls without a schema stay unchecked meanwhile)`,
    );
  const lookup =
    learning || given.length
      ? createSchemaLookup({
          given,
          ...(learning && { learned: registry }),
          onError: onError('reading'),
        })
      : undefined;
  const sink = learning
    ? createSchemaLearningSink(registry, {
        onLearned: (service, version, schemas) => lookup?.remember(service, version, schemas),
        onError: onError('recording'),
      })
    : undefined;
  const tools = given.reduce((n, set) => n + set.tools.size, 0);
  const givenText = given.length
    ? `; ${tools} tool schema(s) given for ${new Set(given.map(g => g.service)).size} service(s) in toolHealth.schemas`
    : '';
  const mode = config.toolHealth.learnSchemas;
  const line = learning
    ? `spanscore: tool_arguments checks a call whose trace records no schema against the latest one its service offered in the last 24 h, and says so${mode === 'token' ? ' (learned from token holders: the receiver requires an ingest token)' : ''}${givenText} (toolHealth.learnSchemas: off turns learning off)`
    : `spanscore: schemas are not learned from traffic (toolHealth.learnSchemas: ${mode}${mode === 'token' ? ', and no ingest token is set: receiver.authTokens, SPANSCORE_INGEST_TOKENS' : ''})${givenText}`;
  return { lookup, sink, learning, line };
}

/**
 * For `/api/v1/tools`: the schema a call of each tool of `services` without one of its own is
 * checked against now, by service and folded tool name (the given one first, as the lookup
 * decides; a learned one from any version).
 */
export function schemaSourcesOf(
  given: GivenSchemas,
  registry: SchemaRegistry | undefined,
  now: () => number = Date.now,
): (services: readonly string[]) => Promise<Map<string, Map<string, SchemaSource>>> {
  return async services => {
    const out = new Map<string, Map<string, SchemaSource>>();
    const of = (service: string) => {
      let m = out.get(service);
      if (!m) out.set(service, (m = new Map<string, SchemaSource>()));
      return m;
    };
    const at = now();
    for (const entry of (await registry?.latest(services, at)) ?? [])
      of(entry.service).set(entry.tool, {
        kind: 'learned',
        traceId: entry.traceId,
        seenAtUnixMs: entry.seenAtUnixMs,
        ageMs: Math.max(0, at - entry.seenAtUnixMs),
      });
    const wanted = new Set(services);
    // Given ones win; those for one version only are not "the" schema of the tool.
    for (const set of [...given].reverse())
      if (wanted.has(set.service) && !set.version)
        for (const tool of set.tools.keys())
          of(set.service).set(tool, { kind: 'config', file: set.file });
    return out;
  };
}

import type { FallbackSchema } from '../../normalize/schema-source.js';

/**
 * The schemas one `toolHealth.schemas` entry gives: for a service (and one `service.version` of
 * it, when `version` is set), by folded tool name.
 */
export interface GivenSchemaSet {
  service: string;
  version?: string;
  /** The file they were read from, as the config names it. */
  file: string;
  tools: ReadonlyMap<string, { name: string; schema: unknown }>;
}

/** Every schema the config gives, in the order it lists them. */
export type GivenSchemas = readonly GivenSchemaSet[];

/**
 * The schema the config gives for `tool` (folded) of `service` and `version`: an entry for that
 * version first, then one for the service as a whole; the first listed of each wins. Pure.
 */
export function findGivenSchema(
  given: GivenSchemas,
  service: string,
  version: string,
  tool: string,
): FallbackSchema | undefined {
  let forService: FallbackSchema | undefined;
  for (const set of given) {
    if (set.service !== service) continue;
    const found = set.tools.get(tool);
    if (!found) continue;
    const schema = { schema: found.schema, source: { kind: 'config', file: set.file } } as const;
    if (set.version !== undefined && set.version !== '') {
      if (set.version === version) return schema;
    } else forService ??= schema;
  }
  return forService;
}

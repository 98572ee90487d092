import {
  SCHEMA_REGISTRY_LIMITS,
  slotOf,
  toolOfAnyVersionSlot,
  type LearnedSchema,
  type LearnedSchemaEntry,
  type SchemaRegistry,
  type SchemaRegistryLimits,
} from './schema-registry.js';

interface ServiceEntries {
  /** By slot, the least recently seen first (an entry seen again moves to the end). */
  slots: Map<string, LearnedSchema>;
  chars: number;
}

/**
 * A {@link SchemaRegistry} in this process (the memory driver's): the same bounds and eviction as
 * the Redis one, so a test of one holds for the other. `limits` narrows the bounds (tests).
 */
export function createMemorySchemaRegistry(limits: SchemaRegistryLimits = {}): SchemaRegistry & {
  /** Services kept, and characters of schema text kept in all (tests read the bounds). */
  size(): { services: number; entries: number; chars: number };
} {
  const bounds: Record<keyof typeof SCHEMA_REGISTRY_LIMITS, number> = {
    ...SCHEMA_REGISTRY_LIMITS,
    ...limits,
  };
  // By service, the least recently seen first.
  const services = new Map<string, ServiceEntries>();
  const fresh = (s: LearnedSchema, now: number): boolean => s.seenAtUnixMs > now - bounds.ttlMs;
  return {
    name: 'memory',
    get(service, version, tools, now) {
      const out = new Map<string, LearnedSchema>();
      const entries = services.get(service);
      if (entries)
        for (const tool of tools) {
          const found = entries.slots.get(slotOf(version, tool));
          if (found && fresh(found, now)) out.set(tool, found);
        }
      return Promise.resolve(out);
    },
    put(service, version, schemas, now) {
      let entries = services.get(service);
      services.delete(service);
      entries ??= { slots: new Map(), chars: 0 };
      services.set(service, entries);
      for (const schema of schemas)
        for (const slot of version === ''
          ? [slotOf('', schema.tool)]
          : [slotOf('', schema.tool), slotOf(version, schema.tool)]) {
          const old = entries.slots.get(slot);
          if (old) {
            entries.chars -= old.text.length;
            entries.slots.delete(slot);
          }
          entries.slots.set(slot, schema);
          entries.chars += schema.text.length;
        }
      for (const [slot, s] of entries.slots) {
        const over =
          entries.slots.size > bounds.maxEntriesPerService ||
          entries.chars > bounds.maxCharsPerService;
        if (!over && fresh(s, now)) continue;
        entries.slots.delete(slot);
        entries.chars -= s.text.length;
      }
      for (const [name, e] of services) {
        const stale = ![...e.slots.values()].some(s => fresh(s, now));
        if (services.size <= bounds.maxServices && !stale) break;
        services.delete(name);
      }
      return Promise.resolve();
    },
    latest(wanted, now) {
      const out: LearnedSchemaEntry[] = [];
      for (const service of wanted)
        for (const [slot, s] of services.get(service)?.slots ?? [])
          if (toolOfAnyVersionSlot(slot) !== undefined && fresh(s, now)) {
            out.push({
              service,
              tool: s.tool,
              name: s.name,
              traceId: s.traceId,
              seenAtUnixMs: s.seenAtUnixMs,
            });
          }
      return Promise.resolve(out);
    },
    size() {
      let entries = 0;
      let chars = 0;
      for (const e of services.values()) {
        entries += e.slots.size;
        chars += e.chars;
      }
      return { services: services.size, entries, chars };
    },
  };
}

import type { RedisClient } from './redis-connection.js';
import { PUT_SCHEMAS } from './lua/put-schemas.js';
import {
  SCHEMA_REGISTRY_LIMITS,
  slotOf,
  toolOfAnyVersionSlot,
  type LearnedSchema,
  type LearnedSchemaEntry,
  type SchemaRegistry,
  type SchemaRegistryLimits,
} from '../score/schemas/schema-registry.js';

interface PutSchemasCommand {
  spanscorePutSchemas(
    texts: string,
    entries: string,
    services: string,
    ...args: Array<string | number>
  ): Promise<number>;
}

/** The registry's keys under `prefix`: one hash tag, so one script reaches them on a cluster. */
export function schemaRegistryKeys(prefix: string): {
  base: string;
  texts: (service: string) => string;
  entries: (service: string) => string;
  services: string;
} {
  const base = `${prefix}:schemas:{sc}`;
  return {
    base,
    texts: service => `${base}:t:${service}`,
    entries: service => `${base}:e:${service}`,
    services: `${base}:services`,
  };
}

/**
 * A {@link SchemaRegistry} in Redis, shared by every process of the BullMQ driver: per service a
 * hash of schema texts by slot and a hash of their entries
 * (`<seen at> <chars> <trace id> <name>`), both expiring after the TTL, and a sorted set of the
 * services by when they were last seen. A put is one script (`lua/put-schemas.ts`) that writes and applies every bound; a get is
 * two `HMGET`s. `limits` narrows the bounds (tests).
 */
export function createRedisSchemaRegistry(
  redis: RedisClient,
  prefix: string,
  limits: SchemaRegistryLimits = {},
): SchemaRegistry {
  const bounds = { ...SCHEMA_REGISTRY_LIMITS, ...limits };
  const keys = schemaRegistryKeys(prefix);
  const commands = redis as RedisClient & PutSchemasCommand;
  commands.defineCommand('spanscorePutSchemas', { numberOfKeys: 3, lua: PUT_SCHEMAS });
  return {
    name: 'redis',
    async get(service, version, tools, now) {
      const out = new Map<string, LearnedSchema>();
      if (tools.length === 0) return out;
      const slots = tools.map(tool => slotOf(version, tool));
      const replies = await redis
        .multi()
        .hmget(keys.entries(service), ...slots)
        .hmget(keys.texts(service), ...slots)
        .exec();
      const entries = (replies?.[0]?.[1] ?? []) as Array<string | null>;
      const texts = (replies?.[1]?.[1] ?? []) as Array<string | null>;
      tools.forEach((tool, i) => {
        const entry = parseEntry(entries[i]);
        const text = texts[i];
        if (!entry || typeof text !== 'string' || entry.seenAtUnixMs <= now - bounds.ttlMs) return;
        out.set(tool, {
          tool,
          name: entry.name,
          text,
          traceId: entry.traceId,
          seenAtUnixMs: entry.seenAtUnixMs,
        });
      });
      return out;
    },
    async put(service, version, schemas, now) {
      if (schemas.length === 0) return;
      const args: Array<string | number> = [
        now,
        bounds.ttlMs,
        bounds.maxEntriesPerService,
        bounds.maxCharsPerService,
        bounds.maxServices,
        service,
        keys.base,
      ];
      for (const s of schemas)
        for (const slot of version === ''
          ? [slotOf('', s.tool)]
          : [slotOf('', s.tool), slotOf(version, s.tool)])
          args.push(slot, s.traceId, s.name, s.text.length, s.text);
      await commands.spanscorePutSchemas(
        keys.texts(service),
        keys.entries(service),
        keys.services,
        ...args,
      );
    },
    async latest(services, now) {
      if (services.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const service of services) pipeline.hgetall(keys.entries(service));
      const replies = (await pipeline.exec()) ?? [];
      const out: LearnedSchemaEntry[] = [];
      services.forEach((service, i) => {
        const fields = (replies[i]?.[1] ?? {}) as Record<string, string>;
        for (const [slot, value] of Object.entries(fields)) {
          const tool = toolOfAnyVersionSlot(slot);
          const entry = tool === undefined ? undefined : parseEntry(value);
          if (!entry || entry.seenAtUnixMs <= now - bounds.ttlMs) continue;
          out.push({ service, tool: tool!, ...entry });
        }
      });
      return out;
    },
  };
}

/** An entry's `<seen at ms> <chars> <trace id> <name>`, or `undefined` when it is not one. */
function parseEntry(
  value: string | null | undefined,
): { seenAtUnixMs: number; traceId: string; name: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+) \d+ (\S+) ([\s\S]*)$/.exec(value);
  if (!match) return undefined;
  return { seenAtUnixMs: Number(match[1]), traceId: match[2]!, name: match[3]! };
}

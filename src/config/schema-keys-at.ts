import type { z } from 'zod';

/**
 * The keys an object may have at `path` in what `schema` parses (a zod issue's path: object keys,
 * record keys, array indexes), through optional, default, prefault, pipe and lazy wrappers; at a
 * union, every object option's keys. Empty when the path leads to no object. Pure: it reads the
 * schema's definition only.
 *
 * @example
 * `schemaKeysAt(configSchema, ['rules', 0])` is a production rule's keys (`name`, `match`, …).
 */
export function schemaKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let level = expand(schema);
  for (const segment of path) level = level.flatMap(s => childOf(s, segment)).flatMap(expand);
  return [
    ...new Set(level.flatMap(s => (s._zod.def.type === 'object' ? Object.keys(shapeOf(s)) : []))),
  ];
}

/** The schemas a value of `schema` is checked against, wrappers taken off and unions opened. */
function expand(schema: z.core.$ZodType): z.core.$ZodType[] {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
      return expand(def.innerType);
    case 'pipe':
      // A file holds what the pipe takes in.
      return expand(def.in);
    case 'lazy':
      return expand(def.getter());
    case 'union':
      return def.options.flatMap(expand);
    case 'intersection':
      return [...expand(def.left), ...expand(def.right)];
    default:
      return [schema];
  }
}

/** The schema of `segment` inside `schema` (already expanded), if it has one. */
function childOf(schema: z.core.$ZodType, segment: PropertyKey): z.core.$ZodType[] {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'object': {
      const child = typeof segment === 'string' ? shapeOf(schema)[segment] : undefined;
      return child ? [child] : [];
    }
    case 'record':
      return [def.valueType];
    case 'array':
      return typeof segment === 'number' ? [def.element] : [];
    case 'tuple': {
      const item = typeof segment === 'number' ? (def.items[segment] ?? def.rest) : undefined;
      return item ? [item] : [];
    }
    default:
      return [];
  }
}

function shapeOf(schema: z.core.$ZodType): Readonly<Record<string, z.core.$ZodType>> {
  return (schema as z.core.$ZodObject)._zod.def.shape;
}

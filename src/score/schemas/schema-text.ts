import { isRecord } from '../../normalize/attribute-values.js';
import { prepareSchema } from '../../normalize/prepare-schema.js';
import { SCHEMA_REGISTRY_LIMITS } from './schema-registry.js';

// Per schema object (tool definitions parsed from the same text are the same frozen objects from
// trace to trace): its text, or null when it is not learned.
const textOf = new WeakMap<object, string | null>();

/**
 * A schema offered in a trace as the JSON text the registry keeps, or `undefined` when it is not
 * kept: not an object, past a bound a check would refuse it at (`prepareSchema`: size, depth,
 * keywords, `$ref`s, branches), or longer than `SCHEMA_REGISTRY_LIMITS.maxSchemaChars` as text.
 * The bounds are measured before anything recursive runs, so no schema can make `JSON.stringify`
 * overflow the stack. Remembered per schema object.
 */
export function schemaText(schema: unknown): string | undefined {
  if (!isRecord(schema)) return undefined;
  let text = textOf.get(schema);
  if (text === undefined) {
    text = null;
    if (typeof prepareSchema(schema) !== 'string') {
      const json = JSON.stringify(schema);
      if (json.length <= SCHEMA_REGISTRY_LIMITS.maxSchemaChars) text = json;
    }
    textOf.set(schema, text);
  }
  return text ?? undefined;
}

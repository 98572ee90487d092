import { LRUCache } from 'lru-cache';
import { isRecord, parseMaybeJson } from './attribute-values.js';
import { setOwnKey } from '../ingest/set-own-key.js';

/** A tool offered to a model, with its parameters' JSON Schema when the trace records one. */
export interface OfferedTool {
  name: string;
  description?: string;
  /** The tool's parameters as JSON Schema (`parameters`, `inputSchema`, `input_schema`, …). */
  parameters?: unknown;
}

/**
 * Reads the tool definitions in one value, in any of the shapes producers record them, each
 * definition once in order; a value that holds none gives `[]`:
 * - a name alone (`"get_weather"`: Mastra's and Strands' agent spans, VoltAgent);
 * - OpenAI's `{type: 'function', function: {name, description, parameters}}`;
 * - flat `{name, description, parameters | inputSchema | input_schema}`: the GenAI semantic
 *   conventions, the AI SDK (`inputSchema`), Anthropic (`input_schema`), MCP `tools/list` and Genkit
 *   (`inputSchema`);
 * - Gemini's function declarations, `{functionDeclarations: [{name, description, parameters}]}`
 *   (also `function_declarations`, and `parametersJsonSchema` for the parameters);
 * - a list of any of these, or a JSON string holding one.
 * A JSON string's definitions are kept (frozen) for the next trace that sends the same text, as
 * production agents do on every model call: its schemas are then the same objects, and their
 * compiled validators are found without hashing them again (see `checkArguments`).
 */
export function readToolDefinitions(value: unknown, depth = 0): readonly OfferedTool[] {
  if (typeof value === 'string' && value.length <= MAX_CACHED_CHARS) {
    let tools = byText.get(value);
    if (!tools) byText.set(value, (tools = Object.freeze(parse(value, depth).map(freeze))));
    return tools;
  }
  return parse(value, depth);
}

/**
 * Definition texts kept: at most 2,000, and 8 MiB of text (each text counted twice, for its parsed
 * definitions), so a sender of many large distinct texts cannot hold more; the longest kept.
 */
const byText = new LRUCache<string, readonly OfferedTool[]>({
  max: 2000,
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (_tools, text) => Math.max(1, text.length * 2),
});
const MAX_CACHED_CHARS = 64 * 1024;

function freeze(tool: OfferedTool): OfferedTool {
  return Object.freeze(tool);
}

function parse(value: unknown, depth: number): OfferedTool[] {
  const v = parseMaybeJson(value, DEFINITIONS_JSON_DEPTH);
  if (Array.isArray(v))
    return depth > 2 ? [] : v.flatMap(d => [...readToolDefinitions(d, depth + 1)]);
  // A name, not JSON text left unparsed (longer than `INPUT_BOUNDS.maxJsonChars`).
  if (typeof v === 'string') return /^\s*$|^\s*[[{]/.test(v) ? [] : [{ name: v.trim() }];
  if (!isRecord(v)) return [];
  const declarations = v.functionDeclarations ?? v.function_declarations;
  if (Array.isArray(declarations) && depth <= 2)
    return declarations.flatMap(d =>
      isRecord(d) && isRecord(d.parameters)
        ? parse({ ...d, parameters: fromGeminiSchema(d.parameters, 0) }, depth + 1)
        : [...readToolDefinitions(d, depth + 1)],
    );
  const def = isRecord(v.function) ? v.function : v;
  if (typeof def.name !== 'string' || def.name === '') return [];
  const parameters =
    def.parameters ??
    def.inputSchema ??
    def.input_schema ??
    def.parametersJsonSchema ??
    def.parameters_json_schema;
  return [
    {
      name: def.name,
      ...(typeof def.description === 'string' && { description: def.description }),
      ...(isSchema(parameters) && {
        parameters: parseMaybeJson(parameters, DEFINITIONS_JSON_DEPTH),
      }),
    },
  ];
}

/**
 * Gemini's `Schema` (an OpenAPI 3.0 subset: `type: 'STRING'`, `nullable: true`) as JSON Schema:
 * types in lower case (a nullable one also `null`), `TYPE_UNSPECIFIED` dropped, the rest kept.
 */
function fromGeminiSchema(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth > 32) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' && typeof value === 'string') {
      if (value === 'TYPE_UNSPECIFIED') continue;
      const type = value.toLowerCase();
      out.type = schema.nullable === true ? [type, 'null'] : type;
    } else if (key === 'nullable') continue;
    else if (key === 'properties' && isRecord(value))
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          isRecord(v) ? fromGeminiSchema(v, depth + 1) : v,
        ]),
      );
    else if (isRecord(value) && (key === 'items' || key === 'additionalProperties'))
      out[key] = fromGeminiSchema(value, depth + 1);
    else if (Array.isArray(value) && key === 'anyOf')
      out.anyOf = (value as unknown[]).map(v => (isRecord(v) ? fromGeminiSchema(v, depth + 1) : v));
    else setOwnKey(out, key, value);
  }
  return out;
}

// A JSON Schema is an object (or `true`/`false`, which no producer writes for a tool's parameters).
function isSchema(value: unknown): boolean {
  return isRecord(parseMaybeJson(value, DEFINITIONS_JSON_DEPTH));
}

/**
 * Tool definitions' JSON text is parsed however deep it nests (`JSON.parse` is not recursive in
 * V8): a schema's depth is bounded where it is prepared (`SCHEMA_LIMITS.maxDepth`), whose check
 * says so in the call's result ("its schema nests deeper than …"), where a text left unparsed
 * would make the tool look offered without a schema. Its length is bounded as all JSON text is.
 */
const DEFINITIONS_JSON_DEPTH = Number.POSITIVE_INFINITY;

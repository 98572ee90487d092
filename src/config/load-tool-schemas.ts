import { readFile, stat } from 'node:fs/promises';
import { basename, relative, isAbsolute } from 'node:path';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { isRecord } from '../normalize/attribute-values.js';
import { toolNames } from '../normalize/canonical-tool-name.js';
import { prepareSchema } from '../normalize/prepare-schema.js';
import { readToolDefinitions } from '../normalize/tool-definitions.js';
import type { GivenSchemaSet, GivenSchemas } from '../score/schemas/given-schemas.js';
import type { Config } from './config-schema.js';

/** What one `toolHealth.schemas` file may hold, at most. */
export const GIVEN_SCHEMA_LIMITS = {
  maxFileBytes: 1024 * 1024,
  maxToolsPerFile: 500,
} as const;

/**
 * Reads the schemas `toolHealth.schemas` gives (see {@link readSchemaFile} for what a file may
 * hold), once, at start-up. Each schema is measured as a schema from a trace would be
 * (`prepareSchema`): one a check would refuse is an error here, not a call left unchecked later.
 * An error names the entry, its file and what was wrong (`SS_USAGE`).
 */
export async function loadToolSchemas(
  entries: Config['toolHealth']['schemas'],
): Promise<GivenSchemas> {
  const out: GivenSchemaSet[] = [];
  for (const [i, entry] of entries.entries()) {
    const shown = shownPath(entry.file);
    const fail = (message: string, cause?: unknown): never => {
      throw new SpanscoreError(
        'SS_USAGE',
        `invalid configuration, toolHealth.schemas.${i} (${shown}): ${message}`,
        cause === undefined ? {} : { cause },
      );
    };
    let text: string;
    try {
      const size = (await stat(entry.file)).size;
      if (size > GIVEN_SCHEMA_LIMITS.maxFileBytes)
        fail(`the file is ${size} bytes, more than ${GIVEN_SCHEMA_LIMITS.maxFileBytes} (1 MiB)`);
      text = await readFile(entry.file, 'utf8');
    } catch (error) {
      if (error instanceof SpanscoreError) throw error;
      return fail(`cannot read the file: ${(error as Error).message}`, error);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return fail(`not JSON: ${(error as Error).message}`, error);
    }
    const tools = readSchemaFile(
      value,
      entry.tool ?? basename(entry.file).replace(/\.json$/i, ''),
      entry.tool !== undefined,
      fail,
    );
    out.push({
      service: entry.service,
      ...(entry.version !== undefined && { version: entry.version }),
      file: shown,
      tools,
    });
  }
  return out;
}

/**
 * The tools of one file, by folded name: a saved MCP `tools/list` result (a `tools` list, or the
 * JSON-RPC response holding it in `result`), a list of tool definitions (any shape a trace may
 * record: `name` with `inputSchema` or `parameters`, OpenAI's `type: 'function'` shape…), or one
 * JSON Schema, for `tool`.
 */
function readSchemaFile(
  value: unknown,
  tool: string,
  toolNamed: boolean,
  fail: (message: string) => never,
): Map<string, { name: string; schema: unknown }> {
  const list = toolList(value);
  const out = new Map<string, { name: string; schema: unknown }>();
  const add = (name: string, schema: unknown, where: string): void => {
    if (!isRecord(schema)) fail(`${where}: its JSON Schema is not an object`);
    const problem = prepareSchema(schema);
    if (typeof problem === 'string') fail(`${where}: ${problem}: a check would refuse it`);
    const folded = toolNames(name).folded;
    if (out.has(folded)) fail(`${where}: the file has tool "${out.get(folded)!.name}" already`);
    out.set(folded, { name, schema });
  };
  if (list === undefined) {
    if (!isRecord(value) || !looksLikeSchema(value))
      fail(
        'expected an MCP tools/list result ({"tools": [{"name", "inputSchema"}]}), a list of tool definitions, or a JSON Schema object',
      );
    add(tool, value, `the schema of ${JSON.stringify(tool)}`);
    return out;
  }
  if (toolNamed) fail('`tool` names the tool of a file of one JSON Schema; this file lists tools');
  if (list.length > GIVEN_SCHEMA_LIMITS.maxToolsPerFile)
    fail(`it lists ${list.length} tools, more than ${GIVEN_SCHEMA_LIMITS.maxToolsPerFile}`);
  list.forEach((item, i) => {
    const [definition] = isRecord(item) ? readToolDefinitions(item) : [];
    if (!definition) return fail(`tools.${i}: not a tool definition with a name`);
    const where = `tool ${JSON.stringify(definition.name)}`;
    if (definition.parameters === undefined)
      fail(`${where}: no JSON Schema (inputSchema, parameters or input_schema)`);
    add(definition.name, definition.parameters, where);
  });
  return out;
}

function toolList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value as unknown[];
  if (!isRecord(value)) return undefined;
  if (Array.isArray(value.tools)) return value.tools as unknown[];
  if (isRecord(value.result) && Array.isArray(value.result.tools))
    return value.result.tools as unknown[];
  return undefined;
}

const SCHEMA_KEYWORDS = [
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'const',
  'not',
  '$schema',
  '$ref',
  'anyOf',
  'oneOf',
  'allOf',
];

// A JSON Schema object says what it is about; a stray object (a config, a response) does not.
function looksLikeSchema(value: Record<string, unknown>): boolean {
  return SCHEMA_KEYWORDS.some(k => Object.hasOwn(value, k));
}

/** A file as messages and sources show it: relative to the working directory when inside it. */
function shownPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

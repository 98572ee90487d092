import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { isRecord } from './attribute-values.js';

/**
 * What checking one call's arguments against its tool's JSON Schema found: `valid`; `invalid`, with
 * each problem as `path: message` (`/amount: must be number`, or for the object as a whole
 * `/: must have required property 'to'`); or `unchecked`, with the reason (no arguments recorded, a
 * schema too large or that cannot be compiled, arguments too large). `notes` say what of a schema was not applied (a `pattern` the
 * linear-time engine cannot run).
 */
export type ArgumentCheck =
  | { status: 'valid'; notes?: string[] }
  | { status: 'invalid'; problems: string[]; notes?: string[] }
  | { status: 'unchecked'; reason: string };

/** Bounds on what a check may cost: schemas and arguments come from untrusted traces. */
export const CHECK_LIMITS = {
  /** A schema's JSON text, at most: compiling is linear in it. */
  maxSchemaChars: 32 * 1024,
  /** A schema's nesting, at most: deeper ones could overflow the stack while compiling. */
  maxSchemaDepth: 32,
  /** Values in one call's arguments, at most (1,000 with `uniqueItems`, which compares pairs). */
  maxArgumentNodes: 5_000,
  maxArgumentNodesUniqueItems: 1_000,
  /** Nesting of one call's arguments, at most. */
  maxArgumentDepth: 64,
  /** Problems listed per call; the rest are counted. */
  maxProblems: 10,
  /** Compiled schemas kept, by hash. */
  cachedSchemas: 500,
} as const;

interface Compiled {
  validate?: ValidateFunction;
  /** Why it could not be compiled. */
  error?: string;
  /** Patterns RE2 cannot run, skipped (each matches everything). */
  skipped: string[];
  uniqueItems: boolean;
}

/**
 * Checks `args` against `schema` (draft-07 unless the schema's `$schema` names 2019-09 or 2020-12)
 * with Ajv, every error listed. Never throws, never hangs: schemas and arguments are bounded by
 * {@link CHECK_LIMITS}; `pattern` and `patternProperties` run on RE2 (re2js), linear in the input,
 * and a pattern RE2 cannot compile (lookaround, backreferences) is skipped and said so; formats
 * are checked by `ajv-formats`' fast regexes; a remote `$ref` is not fetched (the schema is then
 * unchecked). Compiled validators are cached per schema object and by the hash of the schema's
 * text, at most {@link CHECK_LIMITS.cachedSchemas}.
 */
export function checkArguments(schema: unknown, args: unknown): ArgumentCheck {
  if (!isRecord(schema)) return { status: 'unchecked', reason: 'its schema is not an object' };
  const compiled = compile(schema);
  if (!compiled.validate) return { status: 'unchecked', reason: compiled.error! };
  const size = measure(args);
  const maxNodes = compiled.uniqueItems
    ? CHECK_LIMITS.maxArgumentNodesUniqueItems
    : CHECK_LIMITS.maxArgumentNodes;
  if (size.nodes > maxNodes || size.depth > CHECK_LIMITS.maxArgumentDepth)
    return {
      status: 'unchecked',
      reason: `its arguments are too large to check (more than ${maxNodes} values or ${CHECK_LIMITS.maxArgumentDepth} levels)`,
    };
  const notes = compiled.skipped.length
    ? [
        `pattern ${compiled.skipped.map(p => JSON.stringify(p)).join(', ')} not checked: RE2 cannot run it (lookaround or backreferences)`,
      ]
    : undefined;
  if (compiled.validate(args)) return { status: 'valid', ...(notes && { notes }) };
  return {
    status: 'invalid',
    problems: describeErrors(compiled.validate.errors ?? []),
    ...(notes && { notes }),
  };
}

const byObject = new WeakMap<object, Compiled>();
const byHash = new LRUCache<string, Compiled>({ max: CHECK_LIMITS.cachedSchemas });

function compile(schema: Record<string, unknown>): Compiled {
  const known = byObject.get(schema);
  if (known) return known;
  let compiled: Compiled;
  const text = JSON.stringify(schema);
  if (text.length > CHECK_LIMITS.maxSchemaChars)
    compiled = failed(`its schema is larger than ${CHECK_LIMITS.maxSchemaChars / 1024} KiB`);
  else if (depthOf(schema, 0) > CHECK_LIMITS.maxSchemaDepth)
    compiled = failed(`its schema nests deeper than ${CHECK_LIMITS.maxSchemaDepth} levels`);
  else {
    const draft = draftOf(schema);
    const hash = createHash('sha1').update(draft).update(text).digest('base64');
    compiled = byHash.get(hash) ?? compileNew(schema, draft, text);
    byHash.set(hash, compiled);
  }
  byObject.set(schema, compiled);
  return compiled;
}

function failed(error: string): Compiled {
  return { error, skipped: [], uniqueItems: false };
}

type Draft = 'draft-07' | '2019-09' | '2020-12';

function draftOf(schema: Record<string, unknown>): Draft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

// Patterns the engine skipped while compiling the schema at hand (compilation is synchronous).
let skipping: string[] = [];

function compileNew(schema: Record<string, unknown>, draft: Draft, text: string): Compiled {
  skipping = [];
  try {
    // A copy without `$id`: two tools' schemas may share an id, and Ajv keeps ids it has seen.
    const rest = { ...schema };
    delete rest.$id;
    const validate = validator(draft).compile(rest);
    return { validate, skipped: skipping, uniqueItems: text.includes('"uniqueItems"') };
  } catch (error) {
    return failed(`its schema cannot be compiled: ${(error as Error).message}`);
  } finally {
    skipping = [];
  }
}

/**
 * Ajv's pattern engine: RE2 (re2js), which matches in time linear in the input whatever the
 * pattern. A pattern it cannot compile matches everything and is reported as skipped.
 */
const re2Engine = Object.assign(
  (pattern: string): { test(input: string): boolean; toString(): string } => {
    // Ajv shares compiled patterns within an instance by `toString()`: it must name the pattern.
    try {
      const re = RE2JS.compile(pattern);
      return { test: input => re.matcher(input).find(), toString: () => `re2:${pattern}` };
    } catch {
      skipping.push(pattern);
      return { test: () => true, toString: () => `skipped:${pattern}` };
    }
  },
  // Ajv names the engine in generated code only for standalone output, which is not used.
  { code: 'spanscoreRe2' },
);

const validators = new Map<Draft, Ajv>();

function validator(draft: Draft): Ajv {
  let ajv = validators.get(draft);
  if (!ajv) {
    const options: Options = {
      strict: false,
      allErrors: true,
      logger: false,
      // Schemas come from traces: never keep their ids or resolve them across schemas.
      addUsedSchema: false,
      code: { regExp: re2Engine },
    };
    ajv =
      draft === '2020-12'
        ? new Ajv2020(options)
        : draft === '2019-09'
          ? new Ajv2019(options)
          : new Ajv(options);
    addFormats.default(ajv, { mode: 'fast' });
    validators.set(draft, ajv);
  }
  return ajv;
}

function depthOf(value: unknown, depth: number): number {
  if (depth > CHECK_LIMITS.maxSchemaDepth) return depth;
  if (Array.isArray(value)) return Math.max(depth, ...value.map(v => depthOf(v, depth + 1)));
  if (isRecord(value)) {
    let max = depth;
    for (const v of Object.values(value)) max = Math.max(max, depthOf(v, depth + 1));
    return max;
  }
  return depth;
}

// Values and nesting of a JSON value, counted up to just past the bounds.
function measure(value: unknown): { nodes: number; depth: number } {
  let nodes = 0;
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    nodes++;
    if (depth > deepest) deepest = depth;
    if (nodes > CHECK_LIMITS.maxArgumentNodes || deepest > CHECK_LIMITS.maxArgumentDepth) break;
    if (Array.isArray(v)) for (const item of v) stack.push([item, depth + 1]);
    else if (isRecord(v)) for (const item of Object.values(v)) stack.push([item, depth + 1]);
  }
  return { nodes, depth: deepest };
}

/** Ajv's errors as `path: message`, each once, at most {@link CHECK_LIMITS.maxProblems}. */
function describeErrors(errors: readonly ErrorObject[]): string[] {
  const out = new Set<string>();
  // Problems of a property first, then those of the object as a whole (a missing property).
  const ordered = [...errors.filter(e => e.instancePath), ...errors.filter(e => !e.instancePath)];
  for (const e of ordered) out.add(`${e.instancePath || '/'}: ${messageOf(e)}`);
  const list = [...out];
  if (list.length <= CHECK_LIMITS.maxProblems) return list;
  return [
    ...list.slice(0, CHECK_LIMITS.maxProblems),
    `… and ${list.length - CHECK_LIMITS.maxProblems} more`,
  ];
}

function messageOf(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string')
    return `must NOT have additional property '${params.additionalProperty}'`;
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues))
    return `must be one of ${params.allowedValues.map(v => JSON.stringify(v)).join(', ')}`;
  return e.message ?? e.keyword;
}

import { isRecord } from './attribute-values.js';
import { hasOwnKey } from './has-own-key.js';
import { cutTextBytes } from '../ingest/cut-text.js';
import { setOwnKey } from '../ingest/set-own-key.js';
import { patternSizeBound } from './pattern-size.js';

/**
 * Bounds on a JSON Schema read from a trace, checked before anything recursive or compiled runs.
 * Each is a count over the parsed schema (JSON.parse is not recursive in V8, so even a 100,000-deep
 * text parses), taken by one iterative walk that stops at the first bound passed. Compiling costs
 * about 0.1 ms per keyword (Ajv, measured on this project's CI host), so `maxKeywords` bounds a
 * compile near 100 ms.
 */
export const SCHEMA_LIMITS = {
  /**
   * Characters of the schema's strings and keys, and a character for each other scalar (number,
   * boolean, null): its JSON text, roughly. Scalars had counted nothing, so an `enum` value of
   * 100,000 numbers (200 KB of text) was within the bound.
   */
  maxChars: 32 * 1024,
  /** Nesting of objects and arrays. */
  maxDepth: 32,
  /** Object keys in all: each is a keyword, a property name or a definition's name. */
  maxKeywords: 1_000,
  /** `$ref`, `$dynamicRef` and `$recursiveRef` together. */
  maxRefs: 100,
  /** Branches of `anyOf`, `oneOf` and `allOf`, summed over the schema. */
  maxBranches: 200,
  /** Values listed by `enum`, summed over the schema. */
  maxEnumValues: 1_000,
  /**
   * RE2 instructions of the schema's `pattern`s and `patternProperties` names together, with what
   * their Unicode tables and case folding cost to compile, as `patternSizeBound` reads them from
   * their text: compiling costs about 2 µs an instruction, and matching a character costs up to
   * one step of each. A pattern of 479 characters (`(?:a|ab){1000}0` thirty times) compiled to
   * 120,000 instructions in 270 ms, as one keyword.
   */
  maxPatternInstructions: 20_000,
  /**
   * Pattern instructions charged as one keyword to the compile budgets (a trace's, the process's
   * rate): a keyword compiles in about 0.1 ms, an instruction in about 2 µs. 400 schemas of nine
   * `[a-x]{1000}` alternatives each had compiled in 3.45 s charged as their 2,000 object keys.
   */
  patternInstructionsPerKeyword: 50,
  /**
   * The property-name lists of `dependentRequired` and draft-07's `dependencies`, each counted as
   * the names it lists times their characters (a comma and a space each): Ajv compiles a check
   * per name, each holding the whole list joined, so the code grows in the square of a list. One
   * list of 2,000 names compiled (as 4 keywords) to 156 MB in 0.6 s; 6,000 names ran the process
   * out of memory.
   */
  maxDependencyListChars: 64 * 1024,
} as const;

/**
 * The keyword spanscore adds to each subschema of the compiled copy: the validator calls it each
 * time that subschema is applied, with its weight, and so counts the work of a validation (see
 * `checkArguments`).
 */
export const STEP_KEYWORD = 'x-spanscore-step';

/**
 * The keyword spanscore adds beside `uniqueItems: true` where Ajv compares an array's items in
 * pairs (unless its `items` declares a `type` of scalars only: one reached through `$ref` or
 * `anyOf` is not read): applied before `uniqueItems`, it counts the pairs as steps before they
 * are compared (see `checkArguments`).
 */
export const PAIRS_KEYWORD = 'x-spanscore-pairs';

/** A schema fit to compile: a copy with the step keyword in every subschema, and what it holds. */
export interface PreparedSchema {
  schema: Record<string, unknown>;
  /**
   * What compiling it costs, in keywords: the original schema's object keys, plus its patterns'
   * size ({@link SCHEMA_LIMITS.maxPatternInstructions}) a keyword per
   * {@link SCHEMA_LIMITS.patternInstructionsPerKeyword}.
   */
  keywords: number;
  /** It has `uniqueItems` somewhere (comparing items in pairs). */
  uniqueItems: boolean;
}

// Keywords whose values are data, not subschemas: nothing inside is compiled as a schema.
const DATA_KEYWORDS = new Set([
  'enum',
  'const',
  'default',
  'examples',
  '$vocabulary',
  'dependentRequired',
]);
// Keywords whose values map names to subschemas (a `$ref` may point into them).
const MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'definitions',
  '$defs',
  'dependentSchemas',
  'dependencies',
]);
const ROOT_ID = 'urn:spanscore:tool-arguments';
const BRANCH_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf']);
// Annotations left out of the compiled copy: the validator's walk for ids enters an object under
// them (draft-07 does not know `$vocabulary`) and would register what it finds named there
// (`$id`, `$anchor`) as a schema a `$ref` reaches, with no step counted in it: a chain of `anyOf`s
// 20 deep took 2 s, 24 deep ran the process out of memory. Validation never reads them.
const LEFT_OUT = new Set(['examples', '$vocabulary']);
const REF_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef']);

/**
 * Measures `schema` against {@link SCHEMA_LIMITS} and, when it is within them, copies it for
 * compiling: the root's `$id` replaced by one of spanscore's (two tools' schemas may share one), every object outside
 * `enum`, `const`, `default` and `examples` given {@link STEP_KEYWORD} with its weight (1 plus its
 * own keys plus the lengths of its array values), each `$ref` checked to be local (`#…`) and to
 * point at a subschema, never into data; `examples` and `$vocabulary` are left out of the copy.
 * Answers why not otherwise, naming the count and its bound (`400 $refs, the bound is 100`).
 * Iterative: no input can overflow the stack. Pure.
 */
export function prepareSchema(schema: Record<string, unknown>): PreparedSchema | string {
  const counts = {
    chars: 0,
    keywords: 0,
    refs: 0,
    branches: 0,
    enumValues: 0,
    patterns: 0,
    dependencyLists: 0,
  };
  const refs: string[] = [];
  let uniqueItems = false;
  const root: Record<string, unknown> = {};
  const stack: Frame[] = [[schema, root, 0, 'schema']];
  while (stack.length) {
    const [source, copy, depth, place] = stack.pop()!;
    if (depth > SCHEMA_LIMITS.maxDepth)
      return `its schema nests deeper than ${SCHEMA_LIMITS.maxDepth} levels`;
    if (Array.isArray(source)) {
      const out = copy as unknown[];
      for (const item of source) {
        counts.chars += scalarChars(item);
        const over = overBound(counts);
        if (over) return over;
        out.push(child(item, depth, place, stack));
      }
      continue;
    }
    const object = source as Record<string, unknown>;
    // An array's items sit where the array does; a map's values are subschemas.
    const out = copy as Record<string, unknown>;
    let weight = 1;
    for (const key in object) {
      if (!hasOwnKey(object, key)) continue;
      const value = object[key];
      counts.keywords++;
      weight++;
      counts.chars += key.length + scalarChars(value);
      if (place === 'schema') {
        // Lists of property names, as every draft that knows it says; an object in it would be
        // walked for ids as `examples` is (draft-07 does not know the keyword).
        if (key === 'dependentRequired' && !isNameLists(value))
          return "its schema's dependentRequired is not a map of lists of property names";
        if (REF_KEYWORDS.has(key) && typeof value === 'string') {
          counts.refs++;
          if (key === '$ref') refs.push(value);
        } else if (BRANCH_KEYWORDS.has(key) && Array.isArray(value))
          counts.branches += value.length;
        else if (key === 'enum' && Array.isArray(value)) counts.enumValues += value.length;
        else if (key === 'uniqueItems' && value === true) uniqueItems = true;
        else if (key === 'pattern' && typeof value === 'string')
          counts.patterns += patternSizeBound(value);
        else if (key === 'patternProperties' && isRecord(value)) {
          for (const name in value)
            if (hasOwnKey(value, name)) counts.patterns += patternSizeBound(name);
        } else if ((key === 'dependentRequired' || key === 'dependencies') && isRecord(value)) {
          // Each name listed is checked where its key is present, and reported with the whole list.
          const listed = dependencyLists(value);
          counts.dependencyLists += listed.chars;
          weight += listed.names;
        }
        if (Array.isArray(value)) weight += value.length;
      }
      const over = overBound(counts);
      if (over) return over;
      if (depth === 0 && key === '$id') continue;
      const copy = child(value, depth, placeOf(place, key), stack); // walked for the bounds
      if (place === 'schema' && LEFT_OUT.has(key)) continue;
      setOwnKey(out, key, copy);
    }
    if (place === 'schema') {
      out[STEP_KEYWORD] = weight;
      if (hasOwnKey(object, 'uniqueItems') && object.uniqueItems === true)
        if (!scalarItems(object.items)) out[PAIRS_KEYWORD] = true;
    }
  }
  for (const ref of refs) {
    const problem = refProblem(ref, schema);
    if (problem) return problem;
  }
  // An id of our own: a self `$ref` ("#") resolves against it, and it names nothing of the sender's.
  const keywords =
    counts.keywords + Math.ceil(counts.patterns / SCHEMA_LIMITS.patternInstructionsPerKeyword);
  return { schema: { $id: ROOT_ID, ...root }, keywords, uniqueItems };
}

/**
 * Where a value sits: a subschema (or a list of them), a map of names to subschemas, or data.
 * Values of unknown keywords count as subschemas: a `$ref` may point at them, and the validator
 * ignores what it does not know, step keyword included.
 */
type Place = 'schema' | 'map' | 'data';
// [source, its copy, depth, where the source sits]
type Frame = [unknown, Record<string, unknown> | unknown[], number, Place];

function placeOf(parent: Place, key: string): Place {
  if (parent === 'data') return 'data';
  if (parent === 'map') return 'schema';
  if (DATA_KEYWORDS.has(key)) return 'data';
  return MAP_KEYWORDS.has(key) ? 'map' : 'schema';
}

function child(value: unknown, depth: number, place: Place, stack: Frame[]): unknown {
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    stack.push([value, copy, depth + 1, place]);
    return copy;
  }
  if (isRecord(value)) {
    const copy: Record<string, unknown> = {};
    stack.push([value, copy, depth + 1, place]);
    return copy;
  }
  return value;
}

// What a value counts toward the schema's characters: a string its length, any other scalar one;
// an array or object counts its contents, as they are walked.
function scalarChars(value: unknown): number {
  if (typeof value === 'string') return value.length;
  return value !== null && typeof value === 'object' ? 0 : 1;
}

function isNameLists(value: unknown): boolean {
  if (!isRecord(value)) return false;
  for (const key in value) {
    const names = value[key];
    if (!Array.isArray(names) || !names.every(n => typeof n === 'string')) return false;
  }
  return true;
}

// Whether `items` itself declares scalar types only: Ajv then finds duplicates in one pass over
// them, by value (`uniqueItems`), not by comparing every pair. Ajv reads `items.type` only, not
// what a `$ref` or `anyOf` in `items` leads to, so neither may be read here.
function scalarItems(items: unknown): boolean {
  if (!isRecord(items)) return false;
  const types = Array.isArray(items.type) ? (items.type as unknown[]) : [items.type];
  return (
    types.length > 0 &&
    types.every(t => typeof t === 'string' && t !== 'object' && t !== 'array' && t !== '')
  );
}

// The names a `dependentRequired` or `dependencies` map lists, and its lists' size as compiled:
// each list's names times its characters (a name of another type counts as 16).
function dependencyLists(map: Record<string, unknown>): { names: number; chars: number } {
  let names = 0;
  let chars = 0;
  for (const key in map) {
    const list = hasOwnKey(map, key) ? map[key] : undefined;
    if (!Array.isArray(list)) continue; // a subschema (`dependencies`), walked as one
    let joined = 0;
    for (const name of list) joined += (typeof name === 'string' ? name.length : 16) + 2;
    names += list.length;
    chars += list.length * joined;
  }
  return { names, chars };
}

function overBound(counts: {
  chars: number;
  keywords: number;
  refs: number;
  branches: number;
  enumValues: number;
  patterns: number;
  dependencyLists: number;
}): string | undefined {
  if (counts.chars > SCHEMA_LIMITS.maxChars)
    return `its schema is larger than ${SCHEMA_LIMITS.maxChars / 1024} KiB`;
  if (counts.keywords > SCHEMA_LIMITS.maxKeywords)
    return `its schema has more than ${SCHEMA_LIMITS.maxKeywords} keywords, the bound`;
  if (counts.refs > SCHEMA_LIMITS.maxRefs)
    return `its schema has more than ${SCHEMA_LIMITS.maxRefs} $refs, the bound`;
  if (counts.branches > SCHEMA_LIMITS.maxBranches)
    return `its schema has more than ${SCHEMA_LIMITS.maxBranches} anyOf/oneOf/allOf branches, the bound`;
  if (counts.enumValues > SCHEMA_LIMITS.maxEnumValues)
    return `its schema lists more than ${SCHEMA_LIMITS.maxEnumValues} enum values, the bound`;
  if (counts.patterns > SCHEMA_LIMITS.maxPatternInstructions)
    return `its schema's patterns cost more than ${SCHEMA_LIMITS.maxPatternInstructions} regular-expression instructions to compile (Unicode tables and case folding counted), the bound`;
  if (counts.dependencyLists > SCHEMA_LIMITS.maxDependencyListChars)
    return `its schema's dependentRequired/dependencies lists are larger than ${SCHEMA_LIMITS.maxDependencyListChars / 1024} KiB as compiled (each list's names times their characters), the bound`;
  return undefined;
}

/**
 * Why a `$ref` cannot be compiled safely, if it cannot: it must be local (`#` and a JSON pointer,
 * or a plain-name anchor `#name`), and a pointer must lead through subschemas, not into `enum`,
 * `const`, `default` or `examples` (whose objects carry no step count).
 */
function refProblem(ref: string, schema: Record<string, unknown>): string | undefined {
  const shown = JSON.stringify(cutTextBytes(ref, 83));
  if (!ref.startsWith('#')) return `its schema's $ref ${shown} is not local to the schema`;
  if (ref === '#' || !ref.startsWith('#/')) return undefined; // the root, or an anchor
  let at: unknown = schema;
  let place: 'schema' | 'map' | 'list' = 'schema';
  for (const raw of ref.slice(2).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return `its schema's $ref ${shown} is not a valid JSON pointer`;
    }
    if (place === 'schema' && DATA_KEYWORDS.has(segment))
      return `its schema's $ref ${shown} points into ${segment}, which holds data, not a schema`;
    const next: unknown = Array.isArray(at)
      ? at[Number(segment)]
      : isRecord(at)
        ? Object.hasOwn(at, segment)
          ? at[segment]
          : undefined
        : undefined;
    if (next === undefined) return undefined; // unresolved: the compiler says so
    place =
      place === 'schema' && MAP_KEYWORDS.has(segment)
        ? 'map'
        : place === 'schema' && Array.isArray(next)
          ? 'list'
          : 'schema';
    at = next;
  }
  return undefined;
}

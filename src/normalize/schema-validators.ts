import { createHash } from 'node:crypto';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fastFormats } from 'ajv-formats/dist/formats.js';
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { isMultipleOf } from './is-multiple-of.js';
import { PAIRS_KEYWORD, STEP_KEYWORD, type PreparedSchema } from './prepare-schema.js';
import { hasOwnKey } from './has-own-key.js';
import { cutTextBytes } from '../ingest/cut-text.js';

/** Bounds on what compiled validators may cost, in memory and in work. */
export const VALIDATOR_LIMITS = {
  /**
   * Estimated bytes of compiled validators kept (generated code and closures, about 1 KiB a
   * keyword); the least recently used are removed from the validator too.
   */
  cacheBytes: 16 * 1024 * 1024,
  /** Estimated bytes per compiled keyword, for the cache's size. */
  bytesPerKeyword: 1024,
  /**
   * Keywords compiled by one validator instance before it is replaced: Ajv keeps what it compiled
   * in caches of its own, which a new instance drops whole.
   */
  keywordsPerInstance: 10_000,
  /** Characters of a string given to a pattern or a format; longer ones are not matched. */
  maxMatchedChars: 10_000,
  /**
   * Matching a pattern costs a validation step per this many of its RE2 instructions times the
   * characters matched (plus one), at least one step a match, charged before it runs: matching is
   * linear in the text, but each character may touch every instruction (a 1,003-instruction
   * pattern took 36 ms over 10,000 characters; 25 such strings were 9 s for 328 steps, and 400
   * `patternProperties` over 4,900 keys a second for 4,903 steps).
   */
  patternInstructionsPerStep: 16,
  /**
   * Comparing an array's items in pairs costs a step per this many pairs, charged before they are
   * compared: 499 distinct objects made 124,000 comparisons (15 ms) counted as 502 steps. Ajv
   * compares pairs under `uniqueItems` unless the same subschema's `items` itself declares a
   * `type` of scalars only, whatever the items hold: untyped items, or types reached through a
   * `$ref` or `anyOf` (Pydantic's `Set[Enum]`), are compared and charged in pairs too.
   */
  uniqueItemsPairsPerStep: 4,
  /**
   * New schemas compiled per process, in keywords: a burst of this many, refilled at
   * `compileKeywordsPerSecond`. Past it, calls whose schema is new wait for a later trace.
   */
  compileBurstKeywords: 20_000,
  compileKeywordsPerSecond: 2_000,
} as const;

/** A compiled schema, or why it could not be compiled. */
export interface Compiled {
  validate?: ValidateFunction;
  error?: string;
  /** Patterns RE2 cannot run, skipped (each matches everything). */
  skipped: string[];
  uniqueItems: boolean;
}

/** What one validation did beside its verdict: its work, and what it could not match. */
export interface ValidationMeter {
  /** Steps left: a charge past them stops the validation (throws {@link OutOfSteps}). */
  left: number;
  /** Steps charged for work that ran: at most the `left` it started with. */
  spent: number;
  /** Strings longer than {@link VALIDATOR_LIMITS.maxMatchedChars} left unmatched. */
  longStrings: number;
  /** Set when a charge is refused: `spent` with that charge, what the work would have taken. */
  refused?: number;
}

/** Thrown through a validator when its meter runs out of steps. */
export class OutOfSteps extends Error {}

/** Compiles and work counters, process-wide: what tests and the bench read. */
export const validatorStats = { compiles: 0, keywordsCompiled: 0, instances: 0, evicted: 0 };

type Draft = 'draft-07' | '2019-09' | '2020-12';

let meter: ValidationMeter | undefined;
const widths = new WeakMap<object, number>();

/** Runs `validate` on `args` with `m` counting its work; `OutOfSteps` when it runs out. */
export function runMetered(
  validate: ValidateFunction,
  args: unknown,
  m: ValidationMeter,
): boolean | OutOfSteps {
  meter = m;
  try {
    return validate(args);
  } catch (error) {
    if (error instanceof OutOfSteps) return error;
    throw error;
  } finally {
    meter = undefined;
  }
}

// Called by the validator each time a subschema is applied, with that subschema's weight: its
// keys and array lengths, plus the width of the value it is applied to.
function step(weight: number, data: unknown): boolean {
  const m = meter;
  if (!m) return true;
  let cost = weight;
  if (Array.isArray(data)) cost += data.length;
  else if (typeof data === 'string') cost += data.length >> 10;
  else if (data !== null && typeof data === 'object') {
    let w = widths.get(data);
    if (w === undefined) {
      w = 0;
      for (const key in data) if (hasOwnKey(data, key)) w++;
      widths.set(data, w);
    }
    cost += w;
  }
  charge(m, cost);
  return true;
}

// Called before `uniqueItems` compares an array's items in pairs: counts the pairs.
function pairs(_: boolean, data: unknown[]): boolean {
  const n = data.length;
  if (meter && n > 1)
    charge(meter, Math.ceil((n * (n - 1)) / 2 / VALIDATOR_LIMITS.uniqueItemsPairsPerStep));
  return true;
}

// Counts `cost` steps on the meter, or throws `OutOfSteps` when fewer are left, before the work is
// done: `spent` counts only work that ran.
function charge(m: ValidationMeter, cost: number): void {
  if (cost > m.left) {
    m.refused = m.spent + cost;
    m.left = -1;
    throw new OutOfSteps();
  }
  m.spent += cost;
  m.left -= cost;
}

// Patterns the engine skipped while compiling the schema at hand (compilation is synchronous).
let skipping: string[] = [];

/**
 * Ajv's pattern engine: RE2 (re2js), linear in the input whatever the pattern, and given at most
 * {@link VALIDATOR_LIMITS.maxMatchedChars} characters (a longer string is counted, not matched). A
 * pattern it cannot compile matches everything and is reported as skipped.
 */
const re2Engine = Object.assign(
  (pattern: string): { test(input: string): boolean; toString(): string } => {
    // Ajv shares compiled patterns within an instance by `toString()`: it must name the pattern.
    try {
      const re = RE2JS.compile(pattern);
      const size = re.programSize();
      return {
        test: input => {
          if (input.length > VALIDATOR_LIMITS.maxMatchedChars) {
            if (meter) meter.longStrings++;
            return true;
          }
          if (meter)
            charge(
              meter,
              Math.ceil(((input.length + 1) * size) / VALIDATOR_LIMITS.patternInstructionsPerStep),
            );
          // `test`: a match anywhere, as `find` answers, without building a matcher for captures.
          return re.test(input);
        },
        toString: () => `re2:${pattern}`,
      };
    } catch {
      skipping.push(pattern);
      return { test: () => true, toString: () => `skipped:${pattern}` };
    }
  },
  // Ajv names the engine in generated code only for standalone output, which is not used.
  { code: 'spanscoreRe2' },
);

interface Instance {
  ajv: Ajv;
  keywords: number;
}
const instances = new Map<string, Instance>();

function instance(draft: Draft, assertFormats: boolean): Instance {
  const key = `${draft}:${assertFormats}`;
  let found = instances.get(key);
  if (found && found.keywords < bounds.keywordsPerInstance) return found;
  const options: Options = {
    strict: false,
    allErrors: true,
    logger: false,
    // Referenced subschemas become functions, not copies: code grows with the schema, not with
    // the number of $refs times what they point to.
    inlineRefs: false,
    // Schemas come from traces: never keep their ids or resolve them across schemas.
    addUsedSchema: false,
    // A name every object inherits (toString, constructor) is present only when the arguments
    // have it: otherwise `required: ["toString"]` passes `{}` (found by the differential test).
    ownProperties: true,
    // Formats are annotations (2019-09 on) unless the operator asks for them to be asserted.
    validateFormats: assertFormats,
    code: { regExp: re2Engine },
  };
  const ajv =
    draft === '2020-12'
      ? new Ajv2020(options)
      : draft === '2019-09'
        ? new Ajv2019(options)
        : new Ajv(options);
  ajv.addKeyword({ keyword: STEP_KEYWORD, schemaType: 'number', errors: false, validate: step });
  ajv.addKeyword({
    keyword: PAIRS_KEYWORD,
    type: 'array',
    schemaType: 'boolean',
    errors: false,
    before: 'uniqueItems',
    validate: pairs,
  });
  // multipleOf in exact decimals (see `isMultipleOf`): Ajv's own divides in floating point, and
  // read -2e21 as no multiple of 2 (found by the differential test).
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword({
    keyword: 'multipleOf',
    type: 'number',
    schemaType: 'number',
    errors: false,
    error: { message: ({ schema }) => `must be multiple of ${String(schema)}` },
    validate: (divisor: number, value: number) => isMultipleOf(value, divisor),
  });
  if (assertFormats) addBoundedFormats(ajv);
  found = { ajv, keywords: 0 };
  instances.set(key, found);
  validatorStats.instances++;
  return found;
}

// ajv-formats' fast formats, each string format given at most `maxMatchedChars` characters.
function addBoundedFormats(ajv: Ajv): void {
  addFormats.default(ajv, { mode: 'fast' });
  for (const [name, format] of Object.entries(fastFormats)) {
    const test = stringTest(format);
    if (!test) continue; // numeric formats (int32…) and `password`/`binary`, which match all
    ajv.addFormat(name, {
      type: 'string',
      validate: (s: string) => {
        if (s.length > VALIDATOR_LIMITS.maxMatchedChars) {
          if (meter) meter.longStrings++;
          return true;
        }
        return test(s);
      },
    });
  }
}

function stringTest(format: unknown): ((s: string) => boolean) | undefined {
  if (format instanceof RegExp) return s => format.test(s);
  if (typeof format === 'function') return format as (s: string) => boolean;
  if (typeof format !== 'object' || format === null) return undefined;
  const { type, validate } = format as { type?: string; validate?: unknown };
  if (type !== undefined && type !== 'string') return undefined;
  if (validate instanceof RegExp) return s => validate.test(s);
  if (typeof validate === 'function') return validate as (s: string) => boolean;
  return undefined;
}

function draftOf(schema: Record<string, unknown>): Draft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

interface CacheEntry {
  compiled: Compiled;
  keywords: number;
  owner?: Ajv;
  schema?: object;
}

/** The bounds {@link resetValidators} may lower (a test's); {@link VALIDATOR_LIMITS}' otherwise. */
export interface ValidatorBounds {
  cacheBytes: number;
  keywordsPerInstance: number;
}

let bounds: ValidatorBounds = VALIDATOR_LIMITS;

function validatorCache(maxSize: number): LRUCache<string, CacheEntry> {
  return new LRUCache<string, CacheEntry>({
    maxSize,
    sizeCalculation: e => Math.max(1, e.keywords * VALIDATOR_LIMITS.bytesPerKeyword),
    dispose: e => {
      validatorStats.evicted++;
      // Ajv keeps every schema it compiled in its own cache: remove it there too.
      if (e.owner && e.schema) e.owner.removeSchema(e.schema);
    },
  });
}

let byHash = validatorCache(bounds.cacheBytes);

/** The key a schema's compiled validator is cached by. */
export function schemaKey(text: string, assertFormats: boolean): string {
  return createHash('sha1')
    .update(assertFormats ? 'f' : '-')
    .update(text)
    .digest('base64');
}

/** The validator cached for `key`, if any. */
export function cachedValidator(key: string): Compiled | undefined {
  return byHash.get(key)?.compiled;
}

// Keywords that may still be compiled now, and when that was last worked out.
let bucket: number = VALIDATOR_LIMITS.compileBurstKeywords;
let bucketAt = 0;

/** Whether `keywords` more may be compiled now, by the process's compile rate; takes them if so. */
export function takeCompileTokens(keywords: number, now: number): boolean {
  // A clock that went back (another caller's) refills nothing, and takes nothing either.
  const elapsed = Math.max(0, now - bucketAt);
  bucket = Math.min(
    VALIDATOR_LIMITS.compileBurstKeywords,
    bucket + (elapsed / 1000) * VALIDATOR_LIMITS.compileKeywordsPerSecond,
  );
  bucketAt = now;
  if (keywords > bucket) return false;
  bucket -= keywords;
  return true;
}

/** Compiles a prepared schema (counted and cached under `key`). Never throws. */
export function compilePrepared(
  prepared: PreparedSchema,
  key: string,
  assertFormats: boolean,
): Compiled {
  const draft = draftOf(prepared.schema);
  const inst = instance(draft, assertFormats);
  skipping = [];
  let entry: CacheEntry;
  try {
    validatorStats.compiles++;
    validatorStats.keywordsCompiled += prepared.keywords;
    inst.keywords += prepared.keywords;
    const validate = inst.ajv.compile(prepared.schema);
    entry = {
      compiled: { validate, skipped: skipping, uniqueItems: prepared.uniqueItems },
      keywords: prepared.keywords,
      owner: inst.ajv,
      schema: prepared.schema,
    };
  } catch (error) {
    inst.ajv.removeSchema(prepared.schema);
    const message = (error as Error).message;
    entry = {
      compiled: {
        error: `its schema cannot be compiled: ${cutTextBytes(message, 203)}`,
        skipped: [],
        uniqueItems: false,
      },
      keywords: 1,
    };
  } finally {
    skipping = [];
  }
  byHash.set(key, entry);
  return entry.compiled;
}

/**
 * Drops every compiled validator and instance (tests: a known starting point). `scaled`, for
 * tests only, sets the cache's byte bound and the keywords an instance compiles until the next
 * reset (without it, {@link VALIDATOR_LIMITS}' again): a test of what the bounds hold fills a
 * smaller cache with fewer compiles (about 1.7 ms each) than the production bound's thousands.
 */
export function resetValidators(scaled?: Partial<ValidatorBounds>): void {
  byHash.clear();
  bounds = { ...VALIDATOR_LIMITS, ...scaled };
  if (byHash.maxSize !== bounds.cacheBytes) byHash = validatorCache(bounds.cacheBytes);
  instances.clear();
  bucket = VALIDATOR_LIMITS.compileBurstKeywords;
  bucketAt = 0;
}

/** Estimated bytes of the compiled validators kept. */
export function cachedValidatorBytes(): number {
  return byHash.calculatedSize;
}

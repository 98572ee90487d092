import { isRecord } from './attribute-values.js';
import { prepareSchema, SCHEMA_LIMITS } from './prepare-schema.js';
import {
  cachedValidator,
  compilePrepared,
  runMetered,
  schemaKey,
  takeCompileTokens,
  VALIDATOR_LIMITS,
  type Compiled,
  type ValidationMeter,
} from './schema-validators.js';
import { describeProblems, PROBLEM_LIMITS } from './describe-problems.js';
import { measureArguments } from './measure-arguments.js';
import { quoteJson } from './quote-json.js';

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
  /**
   * What a schema may hold: its size, depth, keywords, `$ref`s, branches, enum values, its
   * patterns' size in RE2 instructions, and its dependency lists' size as compiled.
   */
  ...SCHEMA_LIMITS,
  /** Values in one call's arguments, at most (1,000 with `uniqueItems`, which compares pairs). */
  maxArgumentNodes: 5_000,
  maxArgumentNodesUniqueItems: 1_000,
  /** Nesting of one call's arguments, at most. */
  maxArgumentDepth: 64,
  /** Characters of one call's argument strings and keys, at most. */
  maxArgumentChars: 256 * 1024,
  /** Problems listed per call (the rest counted), and the bytes of each and of what it quotes. */
  ...PROBLEM_LIMITS,
  /**
   * Steps for one call: a step per value of its arguments, measured first (at most
   * {@link CHECK_LIMITS.maxArgumentNodes} + 1 are walked); then, validating, each time a subschema
   * is applied, 1 plus its keys, array lengths and dependency-list names plus the width of the
   * value (items, keys, KiB of a string); each pattern match and `uniqueItems`' pairs as
   * {@link VALIDATOR_LIMITS} prices them, charged before they run. A charge past what is left is
   * refused and stops the check. A subschema's own charge is not always first: Ajv runs its
   * `enum` and its `allOf` branches before it, each charged as it runs, so what ran before a
   * refused charge was paid for. A call is debited the steps of the work that ran, never more than
   * its bound: a call refused at once costs a few steps, not its bound.
   */
  maxStepsPerCall: 50_000,
  /** Steps for a whole trace's calls. */
  maxStepsPerTrace: 200_000,
  /** Keywords of new (not yet compiled) schemas one trace may compile. */
  maxCompiledKeywordsPerTrace: 2_000,
  maxMatchedChars: VALIDATOR_LIMITS.maxMatchedChars,
} as const;

// Patterns RE2 cannot run named in a note, at most.
const SKIPPED_NAMED = 5;

/** What one trace may still spend on checking its calls: made per trace, shared by its calls. */
export interface CheckBudget {
  steps: number;
  compileKeywords: number;
}

/** A fresh budget for one trace's checks. */
export function traceCheckBudget(): CheckBudget {
  return {
    steps: CHECK_LIMITS.maxStepsPerTrace,
    compileKeywords: CHECK_LIMITS.maxCompiledKeywordsPerTrace,
  };
}

/** How a check is made. */
export interface CheckOptions {
  /** Assert `format` (date-time, email…) rather than read it as an annotation. Default false. */
  assertFormats?: boolean;
  /** The clock for the process's compile rate, in ms. Default `performance.now()`. */
  now?: () => number;
}

/**
 * Checks `args` against `schema` (draft-07 unless the schema's `$schema` names 2019-09 or 2020-12)
 * with Ajv, every error listed (at most {@link CHECK_LIMITS.maxProblems}, each at most
 * {@link CHECK_LIMITS.maxProblemBytes} bytes, see {@link describeProblems}). Never throws, never
 * hangs, whatever the schema and arguments: the work is bounded before it is done and counted while
 * it is done, and past a bound the call is `unchecked` with the bound named.
 * - The schema is measured first ({@link prepareSchema}: size, depth, keywords, `$ref`s, branches,
 *   enum values, patterns' RE2 instructions, dependency lists), and only then compiled, with
 *   references compiled as functions, never inlined.
 * - New schemas cost a compile (about 0.1 ms a keyword, its patterns' instructions counted a
 *   keyword per {@link CHECK_LIMITS.patternInstructionsPerKeyword}): at most
 *   {@link CHECK_LIMITS.maxCompiledKeywordsPerTrace} keywords per trace (`budget`) and the
 *   process's compile rate ({@link VALIDATOR_LIMITS}); a call past either is unchecked this time.
 * - The arguments are measured (values, nesting, characters) before they are validated, a step
 *   per value walked, and are unchecked past {@link CHECK_LIMITS.maxArgumentNodes} values (the
 *   walk stops there), {@link CHECK_LIMITS.maxArgumentDepth} levels or
 *   {@link CHECK_LIMITS.maxArgumentChars} characters.
 * - Validation counts steps as it goes and stops past {@link CHECK_LIMITS.maxStepsPerCall} (or the
 *   trace's `budget`): the exponential `anyOf` of a recursive `$ref` ends there. A pattern match
 *   and `uniqueItems`' pairs are charged before they run; a stopped call debits the trace the
 *   work that ran, never the work it was refused.
 * - `pattern` and `patternProperties` run on RE2 (re2js), linear in the input (a step per
 *   {@link VALIDATOR_LIMITS.patternInstructionsPerStep} instructions times characters), on
 *   strings of at most {@link CHECK_LIMITS.maxMatchedChars} characters (longer ones are not
 *   matched, and said so); a pattern RE2 cannot compile (lookaround, backreferences) is skipped
 *   and said so.
 * - Formats are annotations unless `options.assertFormats`.
 * - A remote `$ref` is not fetched: the call is unchecked.
 * Compiled validators are cached by the hash of the schema's text, bounded in bytes, and removed
 * from the validator's own cache when they leave it.
 */
export function checkArguments(
  schema: unknown,
  args: unknown,
  budget: CheckBudget = traceCheckBudget(),
  options: CheckOptions = {},
): ArgumentCheck {
  if (!isRecord(schema)) return { status: 'unchecked', reason: 'its schema is not an object' };
  const compiled = compile(schema, budget, options);
  if (typeof compiled === 'string') return { status: 'unchecked', reason: compiled };
  if (!compiled.validate) return { status: 'unchecked', reason: compiled.error! };
  if (budget.steps <= 0)
    return {
      status: 'unchecked',
      reason: `the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps) was spent on earlier calls`,
    };
  const allowed = Math.min(CHECK_LIMITS.maxStepsPerCall, budget.steps);
  const maxNodes = compiled.uniqueItems
    ? CHECK_LIMITS.maxArgumentNodesUniqueItems
    : CHECK_LIMITS.maxArgumentNodes;
  // Measured first, a step per value, from the same allowance as the validation.
  const size = measureArguments(
    args,
    { maxNodes, maxDepth: CHECK_LIMITS.maxArgumentDepth, maxChars: CHECK_LIMITS.maxArgumentChars },
    allowed,
  );
  const meter: ValidationMeter = { left: allowed - size.nodes, spent: size.nodes, longStrings: 0 };
  const verdict =
    size.pastBounds || size.outOfSteps ? undefined : runMetered(compiled.validate, args, meter);
  // Debited the work that ran, stopped or not: a charge past what is left is refused, and never
  // counted (`spent` is at most `allowed`); what ran before it was charged as it ran. The estimate
  // refused had sent the trace to -426,387 (a 5,000-character match priced at 626,000 steps), and
  // then the whole allowance of a call refused before any work spent 50,000 steps: four such calls
  // left every later call of the trace unchecked.
  budget.steps -= meter.spent;
  if (size.pastBounds)
    return {
      status: 'unchecked',
      reason: `its arguments are too large to check (more than ${maxNodes} values, ${CHECK_LIMITS.maxArgumentDepth} levels or ${CHECK_LIMITS.maxArgumentChars / 1024} KiB)`,
    };
  if (typeof verdict !== 'boolean')
    return {
      status: 'unchecked',
      // The trace's budget is named only when the call's bound would have let the work run.
      reason:
        allowed < CHECK_LIMITS.maxStepsPerCall &&
        (meter.refused ?? 0) <= CHECK_LIMITS.maxStepsPerCall
          ? `checking it would pass the trace's checking budget (${CHECK_LIMITS.maxStepsPerTrace} steps)`
          : `checking it would take more than ${CHECK_LIMITS.maxStepsPerCall} steps, the bound`,
    };
  if (verdict && meter.longStrings)
    return {
      status: 'unchecked',
      reason: `${meter.longStrings} of its strings are longer than ${CHECK_LIMITS.maxMatchedChars} characters, the bound for matching a pattern or format`,
    };
  const notes: string[] = [];
  if (compiled.skipped.length) {
    // A schema may hold hundreds: the first few are named, each cut.
    const named = compiled.skipped.slice(0, SKIPPED_NAMED);
    const rest = compiled.skipped.length - named.length;
    notes.push(
      `pattern ${named.map(p => quoteJson(p, CHECK_LIMITS.maxQuotedBytes)).join(', ')}${rest > 0 ? ` (and ${rest} more)` : ''} not checked: RE2 cannot run it (lookaround or backreferences)`,
    );
  }
  if (meter.longStrings)
    notes.push(
      `${meter.longStrings} string(s) longer than ${CHECK_LIMITS.maxMatchedChars} characters not matched against a pattern or format`,
    );
  const withNotes = notes.length ? { notes } : {};
  if (verdict) return { status: 'valid', ...withNotes };
  return {
    status: 'invalid',
    problems: describeProblems(compiled.validate.errors ?? []),
    ...withNotes,
  };
}

// The cache key of each schema object seen (a tool definition text parsed once keeps its
// objects), or why it cannot be compiled; the validators themselves are only in the bounded cache.
const keyOf = new WeakMap<object, { key: string; assertFormats: boolean } | string>();

function compile(
  schema: Record<string, unknown>,
  budget: CheckBudget,
  options: CheckOptions,
): Compiled | string {
  const assertFormats = options.assertFormats === true;
  const known = keyOf.get(schema);
  if (typeof known === 'string') return known;
  if (known && known.assertFormats === assertFormats) {
    const cached = cachedValidator(known.key);
    if (cached) return cached;
  }
  const prepared = prepareSchema(schema);
  if (typeof prepared === 'string') {
    keyOf.set(schema, prepared);
    return prepared;
  }
  // Safe now: the schema is within its depth and size bounds.
  const key = schemaKey(JSON.stringify(prepared.schema), assertFormats);
  keyOf.set(schema, { key, assertFormats });
  const cached = cachedValidator(key);
  if (cached) return cached;
  if (prepared.keywords > budget.compileKeywords)
    return `the trace's compile budget (${CHECK_LIMITS.maxCompiledKeywordsPerTrace} schema keywords) was spent on other schemas`;
  if (!takeCompileTokens(prepared.keywords, (options.now ?? performance.now.bind(performance))()))
    return `new schemas are compiled at most ${VALIDATOR_LIMITS.compileKeywordsPerSecond} keywords a second, and that rate was reached: a later trace will check it`;
  budget.compileKeywords -= prepared.keywords;
  return compilePrepared(prepared, key, assertFormats);
}

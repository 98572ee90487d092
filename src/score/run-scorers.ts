import { createHash } from 'node:crypto';
import { isThenable } from './is-thenable.js';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { Scorer, ScorerKind } from './scorer.js';
import { skipped, type ScoreResult } from './score-result.js';
import type { TestCase } from './test-case.js';

/** A scorer with its options already validated. */
export interface ResolvedScorer {
  scorer: Scorer<unknown>;
  options: unknown;
}

/** One scorer's outcome on one trace. */
export interface ScorerOutcome {
  scorer: string;
  kind: ScorerKind;
  /** {@link scorerVersion} of the scorer that ran. */
  version?: string;
  result: ScoreResult;
}

const versions = new WeakMap<ResolvedScorer, string>();

/**
 * 12 hex characters from a hash of the scorer's name, kind, validated options (keys sorted) and
 * `revision` (past 1):
 * the same configuration gives the same version in every process and run, and any change to an
 * option gives another, so dashboards can tell results of a changed scorer apart.
 */
export function scorerVersion(resolved: ResolvedScorer): string {
  let version = versions.get(resolved);
  if (version === undefined) {
    const { name, kind, revision } = resolved.scorer;
    // A revision past the first is hashed too; revision 1 hashes as before it existed, so the
    // versions of unrevised scorers stay what they were.
    const revised = revision !== undefined && revision > 1 ? { revision } : {};
    version = createHash('sha256')
      .update(JSON.stringify({ name, kind, options: resolved.options, ...revised }, sortedKeys))
      .digest('hex')
      .slice(0, 12);
    versions.set(resolved, version);
  }
  return version;
}

// Objects with their own keys sorted; a regex as its source text.
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (value instanceof RegExp) return value.toString();
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map(k => [k, record[k]]),
  );
}

/**
 * Runs each scorer on the trace. A scorer that throws gives a `failed` result with the error's
 * message (`SS_JUDGE_BUDGET_EXHAUSTED` gives `skipped`, with the reason); it never stops the
 * others, unless `propagate` returns true for the error: then it rejects with it (the BullMQ judge
 * worker does this with retryable judge errors, to retry the job or pause its queue); an `Error`
 * it returns is recorded in the error's place. Results come
 * back in the scorers' order.
 */
export async function runScorers(
  trace: NormalizedTrace,
  testCase: TestCase | undefined,
  scorers: readonly ResolvedScorer[],
  aliases: ReadonlyMap<string, string>,
  propagate?: (error: unknown) => boolean | Error,
): Promise<ScorerOutcome[]> {
  return runScorersAtOnce(trace, testCase, scorers, aliases, propagate);
}

/**
 * {@link runScorers}, its outcomes at once (an array) when every scorer answered at once, as the
 * deterministic ones do, else a promise; where it would reject before any scorer was awaited, it
 * throws. For the per-trace loop, which awaits it only when it is thenable: an async function
 * was an object, a promise and an await of the caller's a trace (about 20 heap bytes a span in
 * `bench/budget-figures.child.ts allocation-memory`), where a deterministic pass awaits nothing.
 */
export function runScorersAtOnce(
  trace: NormalizedTrace,
  testCase: TestCase | undefined,
  scorers: readonly ResolvedScorer[],
  aliases: ReadonlyMap<string, string>,
  propagate?: (error: unknown) => boolean | Error,
): ScorerOutcome[] | Promise<ScorerOutcome[]> {
  // Sized once: an empty array's first push made room for 17 outcomes (about 120 heap bytes
  // more a trace). An index loop: a for-of left an iterator result per scorer.
  const out = new Array<ScorerOutcome>(scorers.length);
  for (let i = 0; i < scorers.length; i++) {
    const resolved = scorers[i]!;
    const { scorer, options } = resolved;
    let result: ScoreResult;
    try {
      const scoring = scorer.score({ trace, testCase, options, aliases });
      // A deterministic scorer answers at once: awaited only when it returns a promise.
      if (isThenable(scoring))
        return awaitScorers(out, i, scoring, trace, testCase, scorers, aliases, propagate);
      result = scoring;
    } catch (error) {
      result = failedResult(error, propagate);
    }
    out[i] = outcomeOf(resolved, result);
  }
  return out;
}

/**
 * {@link runScorersAtOnce} from the `i`th scorer on, whose result `scoring` is awaited: the scorers
 * after it are awaited one by one too, as they were. `out` has a place for every scorer's
 * outcome; those before the `i`th are set.
 */
async function awaitScorers(
  out: ScorerOutcome[],
  i: number,
  scoring: PromiseLike<ScoreResult> | undefined,
  trace: NormalizedTrace,
  testCase: TestCase | undefined,
  scorers: readonly ResolvedScorer[],
  aliases: ReadonlyMap<string, string>,
  propagate: ((error: unknown) => boolean | Error) | undefined,
): Promise<ScorerOutcome[]> {
  for (; i < scorers.length; i++) {
    const resolved = scorers[i]!;
    const { scorer, options } = resolved;
    let result: ScoreResult;
    try {
      const pending = scoring ?? scorer.score({ trace, testCase, options, aliases });
      result = isThenable(pending) ? await pending : pending;
    } catch (error) {
      result = failedResult(error, propagate);
    }
    scoring = undefined;
    out[i] = outcomeOf(resolved, result);
  }
  return out;
}

/** The outcome of a scorer that was not run: `skipped`, with `reason`. */
export function skippedOutcome(resolved: ResolvedScorer, reason: string): ScorerOutcome {
  return outcomeOf(resolved, skipped(reason));
}

/** A scorer's outcome. */
function outcomeOf(resolved: ResolvedScorer, result: ScoreResult): ScorerOutcome {
  const { scorer } = resolved;
  return { scorer: scorer.name, kind: scorer.kind, version: scorerVersion(resolved), result };
}

/**
 * The result of a scorer that threw `error`: `skipped` for an exhausted judge budget, else
 * `failed` with its message (or that of the `Error` `propagate` returns in its place); `error`
 * itself, thrown again, when `propagate` returns true.
 */
function failedResult(
  error: unknown,
  propagate: ((error: unknown) => boolean | Error) | undefined,
): ScoreResult {
  const verdict = propagate?.(error);
  if (verdict === true) throw error;
  // The caller's account of the error (a judge pass naming the 429s it waited out), or its own.
  const e =
    verdict instanceof Error ? verdict : error instanceof Error ? error : new Error(String(error));
  if (isSpanscoreError(e) && e.code === 'SS_JUDGE_BUDGET_EXHAUSTED') return skipped(e.message);
  // A SpanscoreError's code (SS_JUDGE_UNAVAILABLE, …) says more than its class name.
  return {
    status: 'failed',
    error: e.message,
    errorType: isSpanscoreError(e) ? e.code : e.name || 'Error',
  };
}

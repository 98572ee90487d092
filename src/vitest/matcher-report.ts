import type { MatcherState } from 'vitest';
import { buildAliasMap } from '../normalize/canonical-tool-name.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import type { ToolCall } from '../normalize/tool-call.js';
import type { ScoreResult } from '../score/score-result.js';
import type { Scorer } from '../score/scorer.js';

/**
 * What the matchers share: the trace they are given, checked, and the failure message they print
 * (the claim, expected and actual, why, the tool sequence, and a diff of the names).
 */

/** What a matcher returns to vitest (its `MatcherOutcome`). */
export interface MatcherOutcome {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

/** What every matcher is given: a normalized trace, with the aliases it was captured with. */
export type MatchedTrace = NormalizedTrace & { aliases?: ReadonlyMap<string, string> };

/** The arrays a `NormalizedTrace` holds, which the scorers read. */
const TRACE_ARRAYS = ['spans', 'toolSequence', 'toolsUsed', 'agents', 'handoffs'] as const;

/**
 * `received` checked to be a whole normalized trace (from `captureTrace()` or `normalizeTrace()`):
 * the matchers hand it to the scorers as it is, so a partial object is refused here, naming what
 * it lacks, rather than reaching a scorer (a custom one included) without its spans.
 */
export function asTrace(received: unknown, matcher: string): MatchedTrace {
  const r = received as Partial<Record<string, unknown>> | null;
  const expected = `${matcher}: expected a trace from captureTrace() (or a NormalizedTrace)`;
  if (typeof r !== 'object' || r === null || Array.isArray(r))
    throw new TypeError(`${expected}, got ${describe(received)}`);
  if (typeof r.traceId !== 'string')
    throw new TypeError(`${expected}, got ${describe(received)} without a traceId`);
  const missing = TRACE_ARRAYS.filter(key => !Array.isArray(r[key]));
  if (missing.length)
    throw new TypeError(`${expected}, got ${describe(received)} without ${missing.join(', ')}`);
  return r as unknown as MatchedTrace;
}

/**
 * A deterministic scorer's result on a trace, as `spanscore score` would give it, with no test
 * case: the matchers' verdicts all come from here (or, for `toPassScorer`, from any scorer).
 */
export function scoreWith<O>(
  scorer: Scorer<O>,
  trace: MatchedTrace,
  options: Record<string, unknown>,
  aliases: ReadonlyMap<string, string> = new Map(),
): ScoreResult {
  const result = scorer.score({
    trace,
    testCase: undefined,
    options: scorer.parseOptions(options),
    aliases,
  });
  if (result instanceof Promise)
    throw new TypeError(`${scorer.name} is not deterministic: use toPassScorer, and await it`);
  return result;
}

export function aliasesOf(
  trace: MatchedTrace,
  override: Record<string, string> | undefined,
): ReadonlyMap<string, string> {
  if (override) return buildAliasMap(override);
  return trace.aliases instanceof Map ? trace.aliases : new Map();
}

export function reasonOf(result: ScoreResult): string {
  if (result.status === 'failed') return `error: ${result.error}`;
  return result.reason;
}

export interface Report {
  claim: string;
  expected: string[] | undefined;
  actualLabel: string;
  actual: string[];
  detail: string | undefined;
  trace: MatchedTrace;
  /** Show a diff of the expected and actual names (default true). */
  diff?: boolean;
}

export function report(state: MatcherState, matcher: string, r: Report): string {
  const lines = [
    state.utils.matcherHint(`.${matcher}`, 'run', 'expected', { isNot: state.isNot }),
    '',
    r.claim + (r.expected ? ':' : ''),
  ];
  const width = Math.max('Expected'.length, r.actualLabel.length) + 2;
  if (r.expected) lines.push(`  ${'Expected:'.padEnd(width)}${list(r.expected)}`);
  lines.push(`  ${`${r.actualLabel}:`.padEnd(width)}${list(r.actual)}`);
  if (r.detail) lines.push('', r.detail);
  lines.push('', `Tool sequence: ${sequence(r.trace.toolSequence)}`);
  if (r.expected && !state.isNot && r.diff !== false) {
    const diff = state.utils.diff(r.expected, r.actual, {
      aAnnotation: 'Expected',
      bAnnotation: 'Received',
    });
    if (diff) lines.push('', diff);
  }
  return lines.join('\n');
}

function list(names: readonly string[]): string {
  return names.length === 0 ? '(none)' : names.join(', ');
}

export function sequence(calls: readonly ToolCall[]): string {
  if (calls.length === 0) return '(no tool calls)';
  return calls
    .map(c => {
      const args = c.arguments === undefined ? '' : clip(json(c.arguments), 60);
      return `${c.name}(${args})${c.status === 'error' ? ' ✗' : ''}`;
    })
    .join(' → ');
}

export function json(value: unknown): string {
  try {
    return typeof value === 'string'
      ? JSON.stringify(value)
      : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

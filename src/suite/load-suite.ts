import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument, isNode } from 'yaml';
import type { z } from 'zod';
import { describeZodIssue } from '../config/describe-zod-issue.js';
import { readFileAtMost } from '../config/read-file-at-most.js';
import { closestIds } from '../score/closest-ids.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { buildAliasMap } from '../normalize/canonical-tool-name.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from '../normalize/find-test-case-id.js';
import { BUILTIN_SCORERS } from '../score/builtin-scorers.js';
import { compileSafeRegex } from '../score/graders/safe-regex.js';
import type { ResolvedScorer } from '../score/run-scorers.js';
import type { Suite, SuiteCase } from '../score/scoring-plan.js';
import type { Scorer } from '../score/scorer.js';
import type { ExpectedCall, TestCase } from '../score/test-case.js';
import type { LlmContext } from '../score/llm/llm-context.js';
import { createLlmScorers, LLM_SCORER_NAMES, needsJudgeMessage } from '../score/llm/llm-scorers.js';
import { loadCustomScorers } from './load-custom-scorers.js';
import { checkSuiteSize, SUITE_LIMITS, suiteTooLarge } from './suite-limits.js';
import { suiteSchema, type SuiteFile } from './suite-schema.js';

/**
 * Reads and validates a suite file (YAML or JSON; JSON is read by the YAML 1.2 parser, so both
 * report line and column). Every error is a `SpanscoreError` naming the file, the line, the path
 * inside the document and what was expected. Custom scorer modules are loaded, scorer names
 * resolved and options validated here, once, so scoring can trust them. A file past
 * the bounds on a suite (8 MiB, a million YAML tokens) is refused (`SS_SUITE_INVALID`) having read
 * at most one byte past the bound and parsed nothing.
 */
export async function loadSuite(file: string, options: SuiteOptions = {}): Promise<Suite> {
  const path = resolve(file);
  let head;
  try {
    head = await readFileAtMost(path, SUITE_LIMITS.maxBytes);
  } catch (error) {
    throw new SpanscoreError(
      'SS_INPUT_NOT_FOUND',
      `cannot read suite: ${(error as Error).message}`,
      { location: { file }, cause: error },
    );
  }
  if (!head.whole) throw suiteTooLarge(file);
  return parseSuite(head.data.toString('utf8'), file, dirname(path), options);
}

/** What a suite may use besides the built-in deterministic scorers. */
export interface SuiteOptions {
  /** The LLM judge, which makes `tool_call_appropriateness` and `rubric` available. */
  llm?: LlmContext;
}

/**
 * {@link loadSuite} on text already read; `file` is used in messages, `baseDir` for modules. Text
 * past the bounds on a suite (8 Mi characters, a million YAML tokens) is refused before it is parsed.
 */
export async function parseSuite(
  text: string,
  file: string,
  baseDir: string,
  options: SuiteOptions = {},
): Promise<Suite> {
  checkSuiteSize(text, file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const pos = lineCounter.linePos(e.pos[0]);
    throw new SpanscoreError('SS_SUITE_INVALID', `${e.message.split('\n')[0]}`, {
      location: { file, record: `line ${pos.line}:${pos.col}` },
    });
  }
  const where = (p: readonly PropertyKey[]): { file: string; record?: string; path: string } => {
    const node = doc.getIn(p as unknown[], true);
    const range = isNode(node) ? node.range : undefined;
    const record = range ? `line ${lineCounter.linePos(range[0]).line}` : undefined;
    return { file, ...(record && { record }), path: formatPath(p) || '(top level)' };
  };
  let plain: unknown;
  try {
    // The YAML parser refuses aliases whose expansion passes its bound (a "billion laughs").
    plain = doc.toJS();
  } catch (error) {
    throw new SpanscoreError('SS_SUITE_INVALID', (error as Error).message, {
      location: { file },
      cause: error,
    });
  }
  const parsed = suiteSchema.safeParse(plain);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error.issues);
    throw new SpanscoreError('SS_SUITE_INVALID', describeIssue(issue, parsed.error.issues), {
      location: where(issue.path),
    });
  }
  const suite: SuiteFile = parsed.data;

  const scorers = new Map<string, Scorer<unknown>>(BUILTIN_SCORERS);
  if (options.llm)
    for (const [name, scorer] of createLlmScorers(options.llm)) scorers.set(name, scorer);
  for (const custom of await loadCustomScorers(suite.customScorers ?? [], baseDir, file)) {
    if (BUILTIN_SCORERS.has(custom.name)) {
      throw new SpanscoreError(
        'SS_CUSTOM_SCORER_INVALID',
        `custom scorer "${custom.name}" has the name of a built-in scorer`,
        { location: { file, path: 'customScorers' } },
      );
    }
    scorers.set(custom.name, custom);
  }

  const defaults = suite.scorers.map(ref => toRef(ref));
  const seen = new Set<string>();
  const cases: SuiteCase[] = suite.testCases.map((raw, c) => {
    if (seen.has(raw.id)) {
      throw new SpanscoreError('SS_SUITE_INVALID', `duplicate test case id "${raw.id}"`, {
        location: where(['testCases', c, 'id']),
      });
    }
    seen.add(raw.id);
    const own = raw.scorers?.map(ref => toRef(ref));
    const refs = own
      ? own.map(ref => ({
          ...ref,
          options: { ...defaults.find(d => d.name === ref.name)?.options, ...ref.options },
        }))
      : defaults;
    if (refs.length === 0) {
      throw new SpanscoreError(
        'SS_SUITE_INVALID',
        'no scorers: list them under the suite\'s "scorers" or the case\'s own "scorers"',
        { location: where(['testCases', c]) },
      );
    }
    const resolved = refs.map((ref, s): ResolvedScorer => {
      const refPath = own
        ? ['testCases', c, 'scorers', s]
        : ['scorers', suite.scorers.findIndex(d => toRef(d).name === ref.name)];
      const scorer = scorers.get(ref.name);
      if (!scorer) {
        const message = (LLM_SCORER_NAMES as readonly string[]).includes(ref.name)
          ? needsJudgeMessage(ref.name)
          : `unknown scorer "${ref.name}"; built in: ${[...BUILTIN_SCORERS.keys(), ...LLM_SCORER_NAMES].join(', ')}`;
        throw new SpanscoreError('SS_SCORER_UNKNOWN', message, { location: where(refPath) });
      }
      try {
        return { scorer, options: scorer.parseOptions(ref.options) };
      } catch (error) {
        throw new SpanscoreError(
          'SS_SUITE_INVALID',
          `scorer ${ref.name}: ${(error as Error).message}`,
          { location: where(refPath), cause: error },
        );
      }
    });
    if (raw.groundTruth !== undefined && resolved.some(r => r.scorer.name === 'regex_match')) {
      try {
        compileSafeRegex(raw.groundTruth);
      } catch (error) {
        throw new SpanscoreError('SS_SUITE_INVALID', (error as Error).message, {
          location: where(['testCases', c, 'groundTruth']),
        });
      }
    }
    const {
      scorers: _scorers,
      expectedCalls,
      trials: ownTrials,
      recordedFrom: _recordedFrom,
      turns,
      before,
      ...rest
    } = raw;
    if (turns && !raw.session)
      throw new SpanscoreError(
        'SS_SUITE_INVALID',
        `test case "${raw.id}" has turns but is not a session: add session: true`,
        { location: where(['testCases', c, 'turns']) },
      );
    void _recordedFrom;
    const trials = ownTrials ?? suite.trials;
    void _scorers;
    const testCase: TestCase = {
      ...rest,
      ...(expectedCalls && { expectedCalls: expectedCalls.map(toExpectedCall) }),
      ...(turns && {
        turns: turns.map(({ expectedCalls: calls, ...turn }) => ({
          ...turn,
          ...(calls && { expectedCalls: calls.map(toExpectedCall) }),
        })),
      }),
      ...(before && { before: isOneRule(before) ? [before] : before }),
      scorers: refs,
    };
    return { testCase, scorers: resolved, ...(trials && { trials }) };
  });

  return Object.freeze({
    file,
    name: suite.name ?? file,
    aliases: buildAliasMap(suite.aliases),
    testCaseIdAttributes: suite.testCaseIdAttributes ?? DEFAULT_TEST_CASE_ID_ATTRIBUTES,
    sessionIdAttributes: suite.sessionIdAttributes ?? [],
    cases,
    byId: new Map(cases.map(sc => [sc.testCase.id, sc])),
  });
}

function toExpectedCall(e: string | ExpectedCall): ExpectedCall {
  return typeof e === 'string' ? { name: e } : e;
}

/** `before: [a, b]` (one rule) rather than `before: [[a, b], …]`. */
function isOneRule(
  before: readonly [string, string] | ReadonlyArray<readonly [string, string]>,
): before is readonly [string, string] {
  return typeof before[0] === 'string';
}

/** A scorer entry as written (a name, or `{ name, ...options }`) as its name and options. */
export function toRef(ref: string | { name: string; [k: string]: unknown }): {
  name: string;
  options: Record<string, unknown>;
} {
  if (typeof ref === 'string') return { name: ref, options: {} };
  const { name, ...options } = ref;
  return { name, options };
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/**
 * The issue to report: an unknown key before anything else, since it usually explains the rest (a
 * misspelled `testcases:` is also a missing `testCases`).
 */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  return issues.find(i => i.code === 'unrecognized_keys') ?? issues[0]!;
}

function describeIssue(issue: z.core.$ZodIssue, all: readonly z.core.$ZodIssue[]): string {
  if (issue.code === 'invalid_union') {
    return 'expected a scorer name or { name, ...options }, or an expected call name or { name, args?, optional?, forbidden? }';
  }
  if (issue.code === 'unrecognized_keys') {
    // Required keys missing beside it, in the same object: what the unknown ones probably meant.
    const depth = issue.path.length;
    const missing = all
      .filter(
        i =>
          i.code === 'invalid_type' &&
          i.path.length === depth + 1 &&
          i.path.slice(0, depth).every((p, k) => p === issue.path[k]) &&
          i.message.endsWith('received undefined'),
      )
      .map(i => String(i.path[depth]));
    const hints = issue.keys.flatMap(key => {
      const near = closestIds(key, missing, 1)[0];
      return near === undefined ? [] : [{ key, near }];
    });
    const meant =
      hints.length === 1 && issue.keys.length === 1
        ? `"${hints[0]!.near}"`
        : hints.map(h => `"${h.near}" for "${h.key}"`).join(', ');
    return `${describeZodIssue(issue)}${hints.length ? ` (did you mean ${meant}?)` : ''}`;
  }
  return describeZodIssue(issue);
}

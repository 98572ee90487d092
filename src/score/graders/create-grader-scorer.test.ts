import { describe, expect, it } from 'vitest';
import { agentTrace, type CallInput } from '../../../test/helpers/trace-builder.js';
import type { ScoreResult } from '../score-result.js';
import { createGraderScorer } from './create-grader-scorer.js';
import type { GraderName } from './grade-functions.js';

function grade(
  name: GraderName,
  answer: string | undefined,
  groundTruth: string | undefined,
  options: Record<string, unknown> = {},
  calls: CallInput[] = [],
  assistant: string[] = [],
): ScoreResult {
  const scorer = createGraderScorer(name);
  const trace = agentTrace(calls, {
    ...(answer !== undefined && { answer }),
    assistant: answer === undefined ? assistant : [...assistant, answer],
  });
  return scorer.score({
    trace,
    testCase: { id: 't', scorers: [], ...(groundTruth !== undefined && { groundTruth }) },
    options: scorer.parseOptions(options),
    aliases: new Map(),
  }) as ScoreResult;
}
const value = (r: ScoreResult): number | string => (r.status === 'scored' ? r.score : r.status);

describe("Letta's graders, with the examples from its documentation", () => {
  it.each<[GraderName, string, string, number, string]>([
    ['exact_match', '4', '4', 1, 'Exact match: true'],
    ['exact_match', 'four', '4', 0, 'Exact match: false'],
    ['exact_match', '  4 \n', '4', 1, 'Exact match: true'],
    ['exact_match', 'Paris', 'paris', 0, 'Exact match: false'],
    ['contains', 'The capital is Paris', 'Paris', 1, 'Contains ground_truth: true'],
    ['contains', 'The capital is paris', 'Paris', 1, 'Contains ground_truth: true'],
    ['contains', 'The capital is Lyon', 'Paris', 0, 'Contains ground_truth: false'],
    [
      'regex_match',
      '550e8400-e29b-41d4-a716-446655440000',
      '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
      1,
      'Regex match: true',
    ],
    [
      'regex_match',
      'not-a-uuid',
      '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
      0,
      'Regex match: false',
    ],
    ['regex_match', 'total: 42 items', '\\d+', 1, 'Regex match: true'],
  ])('%s(%j, ground truth %j) → %i', (name, answer, truth, score, reason) => {
    expect(grade(name, answer, truth)).toMatchObject({ status: 'scored', score, reason });
  });

  it('ascii_printable_only accepts newlines and rejects emoji, naming the code point', () => {
    expect(grade('ascii_printable_only', 'Hello, World!\n', undefined)).toMatchObject({ score: 1 });
    expect(grade('ascii_printable_only', 'Hello 🌍', undefined)).toMatchObject({
      score: 0,
      reason: 'Non-printable or non-ASCII characters: U+1F30D',
    });
  });

  it('is skipped without ground truth, except ascii_printable_only', () => {
    expect(value(grade('exact_match', 'x', undefined))).toBe('skipped');
    expect(value(grade('ascii_printable_only', 'x', undefined))).toBe(1);
  });

  it('an empty submission scores 0 with a reason', () => {
    expect(grade('contains', undefined, 'x')).toMatchObject({
      score: 0,
      reason: 'Empty submission: the last_assistant extractor found no content',
    });
  });

  it('a pattern built to backtrack catastrophically runs in linear time (RE2)', () => {
    const evil = `${'a'.repeat(50_000)}!`;
    expect(grade('regex_match', evil, '(a+)+$')).toMatchObject({ score: 0 });
    expect(grade('regex_match', evil, '(a|aa)*!')).toMatchObject({ score: 1 });
  });

  it('refuses an invalid or unsupported pattern when options are parsed', () => {
    expect(() =>
      createGraderScorer('regex_match').parseOptions({ groundTruth: '(?<=a)b' }),
    ).toThrow(/RE2 syntax/);
    expect(() => createGraderScorer('exact_match').parseOptions({ extractor: 'pattern' })).toThrow(
      /extractorConfig.pattern/,
    );
  });
});

describe('submission extractors', () => {
  const calls: CallInput[] = [
    { name: 'search', args: { query: 'pandas' }, result: { hits: 3 } },
    { name: 'calculator', args: { expr: '2+2' }, result: '4' },
  ];
  it('tool_arguments: the first call of the tool, as JSON; "{}" when never called', () => {
    expect(
      grade(
        'contains',
        'done',
        'pandas',
        { extractor: 'tool_arguments', extractorConfig: { toolName: 'search' } },
        calls,
      ),
    ).toMatchObject({ score: 1, details: { submission: '{"query":"pandas"}' } });
    expect(
      grade(
        'exact_match',
        'done',
        '{}',
        { extractor: 'tool_arguments', extractorConfig: { toolName: 'missing_tool' } },
        calls,
      ),
    ).toMatchObject({ score: 1 });
  });
  it('tool_output: the result of the first call of the tool', () => {
    expect(
      grade(
        'exact_match',
        'done',
        '4',
        { extractor: 'tool_output', extractorConfig: { toolName: 'Calculator' } },
        calls,
      ),
    ).toMatchObject({ score: 1 });
  });
  it('final_output, last_assistant, first_assistant and all_assistant', () => {
    expect(grade('exact_match', 'final', 'final', { extractor: 'final_output' })).toMatchObject({
      score: 1,
    });
    expect(
      grade('exact_match', 'last', 'first', { extractor: 'first_assistant' }, [], ['first']),
    ).toMatchObject({ score: 1 });
    expect(
      grade('exact_match', 'last', 'first\nlast', { extractor: 'all_assistant' }, [], ['first']),
    ).toMatchObject({ score: 1 });
  });
  it('pattern: a capture group from the newest assistant message that matches', () => {
    expect(
      grade(
        'exact_match',
        'no answer here',
        '42',
        { extractor: 'pattern', extractorConfig: { pattern: 'ANSWER: (\\d+)', group: 1 } },
        [],
        ['ANSWER: 7', 'ANSWER: 42'],
      ),
    ).toMatchObject({ score: 1 });
    expect(
      grade(
        'exact_match',
        'x',
        '7\n42',
        {
          extractor: 'pattern',
          extractorConfig: { pattern: 'ANSWER: (\\d+)', group: 1, searchAll: true },
        },
        [],
        ['ANSWER: 7', 'ANSWER: 42'],
      ),
    ).toMatchObject({ score: 1 });
  });
});

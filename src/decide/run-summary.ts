import { z } from 'zod';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { TrialAggregate } from './aggregate-trials.js';

/** The run summary format this spanscore writes and reads. */
export const RUN_SUMMARY_VERSION = 1;

/** Failing trace ids kept per row: enough to start looking, few enough to commit the file. */
const MAX_TRACE_IDS = 3;

const rate = z.number().min(0).max(1);

const rowSchema = z
  .object({
    testCaseId: z.string().min(1),
    scorer: z.string().min(1),
    scorerVersion: z.string().nullable(),
    runs: z.number().int().min(0),
    passes: z.number().int().min(0),
    passRate: rate.nullable(),
    interval: z.tuple([rate, rate]),
    k: z.number().int().min(1),
    passAtK: rate.nullable(),
    passHatK: rate.nullable(),
    stability: z.enum(['stable_pass', 'stable_fail', 'flaky', 'no_runs']),
    failingTraceIds: z.array(z.string()),
  })
  .refine(row => row.passes <= row.runs, 'passes above runs');

const summarySchema = z.object({
  spanscoreRunSummary: z.literal(RUN_SUMMARY_VERSION),
  suite: z.string(),
  spanscoreVersion: z.string(),
  createdAt: z.string(),
  labels: z.record(z.string(), z.string()),
  results: z.array(rowSchema),
});

/**
 * A run summary: per test case × scorer the aggregates of a run, small enough to commit as a
 * baseline (about 300 bytes a row), versioned by `spanscoreRunSummary`.
 */
export type RunSummary = z.infer<typeof summarySchema>;

/** One row of a run summary. */
export type RunSummaryRow = RunSummary['results'][number];

/** Builds the run summary of a run's aggregates. */
export function buildRunSummary(
  aggregates: readonly TrialAggregate[],
  meta: {
    suite: string;
    spanscoreVersion: string;
    createdAt: Date;
    labels: Record<string, string>;
  },
): RunSummary {
  return {
    spanscoreRunSummary: RUN_SUMMARY_VERSION,
    suite: meta.suite,
    spanscoreVersion: meta.spanscoreVersion,
    createdAt: meta.createdAt.toISOString(),
    labels: meta.labels,
    results: aggregates.map(a => ({
      testCaseId: a.testCaseId,
      scorer: a.scorer,
      scorerVersion: a.scorerVersion,
      runs: a.runs,
      passes: a.passes,
      passRate: round(a.passRate),
      interval: [round(a.interval[0]), round(a.interval[1])],
      k: a.k,
      passAtK: round(a.passAtK),
      passHatK: round(a.passHatK),
      stability: a.stability,
      failingTraceIds: a.failingTraceIds.slice(0, MAX_TRACE_IDS),
    })),
  };
}

/** Rates rounded to 4 decimals in the file: a tenth of a percentage point is plenty. */
function round<T extends number | null>(n: T): T {
  return (n === null ? null : Math.round(n * 10_000) / 10_000) as T;
}

/** The file's text: one row per line, so a diff of two baselines reads row by row. */
export function formatRunSummary(summary: RunSummary): string {
  const { results, ...head } = summary;
  const rows = results.map(row => `    ${JSON.stringify(row)}`).join(',\n');
  const top = JSON.stringify(head, null, 2).slice(0, -2);
  return `${top},\n  "results": [\n${rows}${rows ? '\n' : ''}  ]\n}\n`;
}

/**
 * Reads a run summary's text; `file` names it in errors. Throws `SS_SUMMARY_INVALID` for text that
 * is not JSON, not a run summary, one of another format version (saying which), or one with two
 * rows of one test case × scorer. The text is not bounded here: the CLI's `readSummary` bounds
 * the file before it is read.
 */
export function parseRunSummary(text: string, file: string): RunSummary {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SpanscoreError('SS_SUMMARY_INVALID', `not JSON: ${(error as Error).message}`, {
      location: { file },
      cause: error,
    });
  }
  const version = (json as { spanscoreRunSummary?: unknown } | null)?.spanscoreRunSummary;
  if (typeof json !== 'object' || json === null || version === undefined)
    throw new SpanscoreError(
      'SS_SUMMARY_INVALID',
      `not a spanscore run summary (no "spanscoreRunSummary"; write one with score --summary)`,
      { location: { file } },
    );
  if (version !== RUN_SUMMARY_VERSION)
    throw new SpanscoreError(
      'SS_SUMMARY_INVALID',
      `run summary version ${JSON.stringify(version)}; this spanscore reads version ${RUN_SUMMARY_VERSION}`,
      { location: { file } },
    );
  const parsed = summarySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SpanscoreError('SS_SUMMARY_INVALID', issue.message, {
      location: { file, path: issue.path.join('.') || '(top)' },
    });
  }
  // One row per test case × scorer, as buildRunSummary writes: a second would be compared as new
  // beside the first (or hide it, in a baseline).
  const rows = new Map<string, number>();
  parsed.data.results.forEach((row, i) => {
    const key = `${row.testCaseId}\u0000${row.scorer}`;
    const first = rows.get(key);
    if (first !== undefined)
      throw new SpanscoreError(
        'SS_SUMMARY_INVALID',
        `a second row for test case ${JSON.stringify(row.testCaseId)} × scorer ${JSON.stringify(row.scorer)} (the first is results.${first})`,
        { location: { file, path: `results.${i}` } },
      );
    rows.set(key, i);
  });
  return parsed.data;
}

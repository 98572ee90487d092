import Table from 'cli-table3';
import picocolors from 'picocolors';
import type { TrialAggregate } from '../decide/aggregate-trials.js';
import type { ResultRow, OutcomeCounts } from './result-row.js';
import { terminalText } from './terminal-text.js';

const REASON_WIDTH = 64;

type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * `table`: one row per test case × scorer with score, label and a short reason, then the totals.
 * `color` says whether the destination shows ANSI colours; the caller knows the stream.
 */
export function formatTable(
  rows: readonly ResultRow[],
  summary: OutcomeCounts,
  unmatchedTraces: number,
  color = false,
): string {
  const pc = picocolors.createColors(color);
  const table = new Table({
    head: ['Test case', 'Scorer', 'Score', 'Result', 'Reason'],
    style: { head: [], border: [] },
    // One line per result, no rule between rows: easier to scan in a terminal or CI log.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
    wordWrap: true,
    colWidths: [null, null, null, null, REASON_WIDTH + 2],
  });
  for (const row of rows) {
    table.push([
      terminalText(row.testCaseId),
      terminalText(row.scorer),
      row.score === null ? '-' : String(row.score),
      label(row, pc),
      truncate(row.reason),
    ]);
  }
  return `${rows.length ? table.toString() : '(no results)'}\n${formatSummary(summary, unmatchedTraces, color)}\n`;
}

/** The totals line, also printed to stderr when results go to a file. */
export function formatSummary(s: OutcomeCounts, unmatchedTraces: number, color = false): string {
  const pc = picocolors.createColors(color);
  // "failed" is a result that did not pass; a scorer that could not score is an error.
  const parts = [
    pc.green(`${s.pass} passed`),
    (s.fail ? pc.red : pc.dim)(`${s.fail} failed`),
    pc.dim(`${s.skipped} skipped`),
    (s.failed ? pc.red : pc.dim)(`${s.failed} ${s.failed === 1 ? 'error' : 'errors'}`),
    (s.missing ? pc.red : pc.dim)(`${s.missing} missing`),
  ];
  const extra = unmatchedTraces ? `; ${unmatchedTraces} trace(s) matched no test case` : '';
  return `${s.results} results: ${parts.join(', ')}${extra}`;
}

function label(row: ResultRow, pc: Colors): string {
  switch (row.status) {
    case 'scored':
      return row.label === 'pass' ? pc.green('pass') : pc.red('fail');
    case 'skipped':
      return pc.dim('skipped');
    case 'failed':
      return pc.red('failed');
    case 'missing':
      return pc.red('missing');
  }
}

function truncate(text: string): string {
  const one = terminalText(text);
  return one.length > REASON_WIDTH * 2 ? `${one.slice(0, REASON_WIDTH * 2 - 1)}…` : one;
}

/** Whether a run has anything to say about repeated runs: a case run more than once, or `trials`. */
export function hasTrials(trials: readonly TrialAggregate[]): boolean {
  return trials.some(t => t.runs > 1 || t.required !== undefined);
}

/** `33% (1/3)`, or `–` with no runs. */
export function passRateText(t: Pick<TrialAggregate, 'passes' | 'runs'>): string {
  return t.runs ? `${Math.round((100 * t.passes) / t.runs)}% (${t.passes}/${t.runs})` : '– (0/0)';
}

const fixed = (n: number | null): string => (n === null ? '–' : n.toFixed(2));

/**
 * The repeated-runs table: per test case × scorer the runs, pass rate with its 95% interval,
 * `pass@k` and `pass^k`, stability, and the `trials` requirement's outcome when the suite sets one.
 */
export function formatTrialsTable(trials: readonly TrialAggregate[], color = false): string {
  const pc = picocolors.createColors(color);
  const table = new Table({
    head: [
      'Test case',
      'Scorer',
      'Pass rate',
      '95% interval',
      'k',
      'pass@k',
      'pass^k',
      'Stability',
      'Required',
    ],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const t of trials) {
    const required = t.required
      ? `${t.required.outcome === 'pass' ? pc.green('pass') : pc.red(t.required.outcome === 'fail' ? 'fail' : 'too few runs')} (≥${t.required.min} runs, ≥${Math.round(t.required.passRate * 100)}%)`
      : pc.dim('–');
    table.push([
      t.testCaseId,
      t.scorer,
      passRateText(t),
      `${fixed(t.interval[0])}–${fixed(t.interval[1])}`,
      String(t.k),
      fixed(t.passAtK),
      fixed(t.passHatK),
      t.stability === 'flaky' ? pc.yellow('flaky') : t.stability.replace('_', ' '),
      required,
    ]);
  }
  return `Repeated runs\n${table.toString()}\n`;
}

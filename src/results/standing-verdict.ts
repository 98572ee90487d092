import type { RunRecord, StoredResult } from './stored-result.js';

/** Where a skipped result's reason starts saying which verdict stands (see {@link standingVerdict}). */
export const STANDING_VERDICT = '; the verdict that stands: ';

/**
 * What a rescore past `MAX_JUDGE_PASSES_PER_TRACE` adds to its skipped LLM results' reason: which
 * verdict of the trace's judge passes stands, read from the trace's run record before the rescore
 * replaces it (its results, newest last). Per LLM scorer, the newest judge-pass result (`llm`
 * phase): its label (or status), score and the tool calls it judged; else what the record's own
 * skipped result said stood (an earlier rescore past the cap), carried on; else that none is
 * recorded yet (the last judge pass may still be under way: its verdict is written when it ends,
 * after this one). Pure; the reason is bounded with
 * the result (`RESULT_BOUNDS`).
 */
export function standingVerdict(record: Pick<RunRecord, 'results'> | undefined): string {
  const results = record?.results ?? [];
  const judged = new Map<string, StoredResult>();
  for (const r of results) if (r.phase === 'llm') judged.set(r.scorer, r);
  if (judged.size > 0)
    return `${STANDING_VERDICT}its last judge pass's (in the trace's evaluation spans): ${[
      ...judged.values(),
    ]
      .map(verdictOf)
      .join(', ')}`;
  for (let i = results.length - 1; i >= 0; i--) {
    const r = results[i]!;
    const at = r.status === 'skipped' ? r.reason.indexOf(STANDING_VERDICT) : -1;
    if (at >= 0) return r.reason.slice(at);
  }
  return `${STANDING_VERDICT}none recorded yet (its last judge pass may still be under way: its verdict is added to the trace's results when it ends)`;
}

/** A judge-pass result as the note names it. */
function verdictOf(r: StoredResult): string {
  const outcome =
    r.status === 'scored'
      ? `${r.label ?? 'scored'}${r.score === null ? '' : ` (score ${r.score})`}`
      : r.status;
  const calls = r.toolSequence.length;
  return `${r.scorer} ${outcome} over ${calls} tool call${calls === 1 ? '' : 's'}`;
}

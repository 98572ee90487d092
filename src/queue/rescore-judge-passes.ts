/**
 * Judge passes one trace may have, its first scoring's included, when late spans rescore it
 * (`assembly.rescoreLateSpans`): a sender that trickles a trace's spans in many late batches
 * would otherwise buy one LLM judge call per batch, each prompt new (every rescore sees more
 * spans), so the judge cache does not catch them. Its first scoring and its first
 * `MAX_JUDGE_PASSES_PER_TRACE - 1` rescores queue a judge pass; a later rescore runs the
 * deterministic scorers only, and its LLM scorers are `skipped` saying why
 * ({@link rescoreJudgeSkipped}). Not a setting: a trace whose spans keep arriving after it was
 * scored is rare, and two rescores let a straggler or two still be judged.
 */
export const MAX_JUDGE_PASSES_PER_TRACE = 3;

/**
 * Why the `rescore`th rescore of a trace (1 for the first; 0 or `undefined` for its first scoring)
 * gets no judge pass, or `undefined` when it gets one (see {@link MAX_JUDGE_PASSES_PER_TRACE}).
 * A retried rescore is counted once (see `countRescore`).
 */
export function rescoreJudgeSkipped(rescore: number | undefined): string | undefined {
  if (!rescore || rescore < MAX_JUDGE_PASSES_PER_TRACE) return undefined;
  return `judge pass skipped: this is rescore ${rescore} of the trace after late spans (assembly.rescoreLateSpans), and a trace gets at most ${MAX_JUDGE_PASSES_PER_TRACE} judge passes (its first scoring and ${MAX_JUDGE_PASSES_PER_TRACE - 1} rescores); its deterministic scorers ran with every span`;
}

import { cutText } from '../ingest/cut-text.js';

/** Reasons for traces not scored that a store's counters keep apart per process; the rest are one. */
export const MAX_NOT_SCORED_REASONS = 50;

/** Characters of a reason for traces not scored that the counters keep (the rest cut, `…`). */
export const MAX_NOT_SCORED_REASON_CHARS = 256;

/** The reason every trace not scored past {@link MAX_NOT_SCORED_REASONS} distinct ones counts under. */
export const OTHER_NOT_SCORED_REASON = `other reasons (past the first ${MAX_NOT_SCORED_REASONS} kept apart)`;

const SEP = '\u001f';

/**
 * The field counting traces not scored for `reason`: its words without parenthesized details
 * (what `/\s*\([^)]*\)/g` removes, found here in one pass: that regex backtracked through a run of
 * white space for every character of it, 2.5 s for a 40,000-space test case id), trimmed and cut to
 * {@link MAX_NOT_SCORED_REASON_CHARS}. A reason names what its trace said
 * (`test case "<id>" is in no suite`), so the field is as distinct as the trace wants: a store bounds how many it keeps
 * apart with {@link notScoredFields}. Pure.
 */
export function notScoredField(reason: string): string {
  let words = '';
  let from = 0;
  for (let open = reason.indexOf('('); open !== -1; open = reason.indexOf('(', from)) {
    const close = reason.indexOf(')', open + 1);
    if (close === -1) break;
    words += reason.slice(from, open).trimEnd();
    from = close + 1;
    // A cut reason needs no more of its words than that.
    if (words.length > MAX_NOT_SCORED_REASON_CHARS) break;
  }
  words = (words + reason.slice(from, from + 2 * MAX_NOT_SCORED_REASON_CHARS)).trim();
  const kept =
    words.length <= MAX_NOT_SCORED_REASON_CHARS
      ? words
      : `${cutText(words, MAX_NOT_SCORED_REASON_CHARS - 1)}…`;
  return `ns${SEP}${kept}`;
}

/**
 * {@link notScoredField} with at most `max` distinct fields per process (this function's): the
 * first seen keep theirs, later ones count under {@link OTHER_NOT_SCORED_REASON}, so the summary
 * still counts every trace. Unbounded, each trace of its own unknown test case id added a field
 * as long as its id to the minute, held for the retention (memory) or rewritten to Redis with
 * every flush. A field already kept stays kept: a replaced pass takes its count back from the
 * field it was counted in.
 */
export function notScoredFields(max = MAX_NOT_SCORED_REASONS): (reason: string) => string {
  const kept = new Set<string>();
  const other = `ns${SEP}${OTHER_NOT_SCORED_REASON}`;
  return reason => {
    const field = notScoredField(reason);
    if (kept.has(field)) return field;
    if (kept.size >= max) return other;
    kept.add(field);
    return field;
  };
}

import { cutTextMarked } from '../ingest/cut-text.js';
import { FIELD_SEP } from './minute-aggregates.js';

/** Characters of a reason for traces not scored that the counters keep (the rest cut, `…`). */
export const MAX_NOT_SCORED_REASON_CHARS = 256;

/**
 * The reason a trace whose test case id no suite has counts under, whatever its id (its run record
 * and its reason still name the id, cut at 256 characters).
 */
export const UNKNOWN_TEST_CASE_REASON = 'test case id is in no suite';

/**
 * The field counting traces not scored for `reason`: its words without parenthesized details
 * (what `/\s*\([^)]*\)/g` removes, found here in one pass: that regex backtracked through a run of
 * white space for every character of it, 2.5 s for a 40,000-space test case id), trimmed and cut to
 * {@link MAX_NOT_SCORED_REASON_CHARS}. A reason that starts by naming the trace's test case id no
 * suite has (`test case "<testCaseId>" is in no suite`, the run's `testCaseId` as its reason shows
 * it) counts under {@link UNKNOWN_TEST_CASE_REASON} instead: with the id in it, each trace of its
 * own id added a field to its minute, held for the retention (memory) or rewritten to Redis with
 * every flush. The field follows from `reason` and `testCaseId` alone, so that every process (and
 * release) counts a trace and takes its count back in the same field. Pure.
 */
export function notScoredField(reason: string, testCaseId?: string): string {
  const named = testCaseId === undefined ? '' : `test case "${testCaseId}" is in no suite`;
  if (named && reason.startsWith(named))
    reason = UNKNOWN_TEST_CASE_REASON + reason.slice(named.length);
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
  return `ns${FIELD_SEP}${cutTextMarked(words, MAX_NOT_SCORED_REASON_CHARS)}`;
}

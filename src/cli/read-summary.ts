import { readFileAtMost } from '../config/read-file-at-most.js';
import { parseRunSummary, type RunSummary } from '../decide/run-summary.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { checkJsonItems, DEFAULT_DECODE_LIMITS } from '../ingest/decode-limits.js';

/**
 * What a run summary file may hold, at most: a summary is untrusted (a CI artifact, another
 * branch's baseline), and `JSON.parse` builds all of it before it can be checked (a 10 MB file of
 * nested brackets took 590 MB; a 1 GB file was read whole, then failed as "Invalid string
 * length"). Far above real summaries: about 300 bytes and 5 to 8 JSON items (the row, its interval
 * and failing trace ids) per test case × scorer, so these take 100,000 rows or more, more than the
 * largest suite (16,000 recorded test cases) with six scorers.
 */
export const RUN_SUMMARY_LIMITS = {
  /** Bytes of the file: 32 MiB. */
  maxBytes: 32 * 1024 * 1024,
  /** Objects, arrays and array elements (see `checkJsonItems`), counted before parsing. */
  maxItems: 1_000_000,
} as const;

/**
 * Reads a run summary file (`SS_INPUT_NOT_FOUND` when it cannot be read; `SS_SUMMARY_INVALID`,
 * naming the file and the bound, past {@link RUN_SUMMARY_LIMITS}, having read at most one byte
 * past `maxBytes` and parsed nothing).
 */
export async function readSummary(file: string): Promise<RunSummary> {
  let head;
  try {
    head = await readFileAtMost(file, RUN_SUMMARY_LIMITS.maxBytes);
  } catch (error) {
    throw new SpanscoreError(
      'SS_INPUT_NOT_FOUND',
      `cannot read run summary: ${(error as Error).message}`,
      { location: { file }, cause: error },
    );
  }
  const refuse = (message: string, cause?: unknown): SpanscoreError =>
    new SpanscoreError('SS_SUMMARY_INVALID', `${message}, the bound on a run summary`, {
      location: { file },
      ...(cause !== undefined && { cause }),
    });
  const { maxBytes, maxItems } = RUN_SUMMARY_LIMITS;
  if (!head.whole)
    throw refuse(`the file is larger than ${maxBytes.toLocaleString('en-US')} bytes (32 MiB)`);
  try {
    checkJsonItems(head.data, { ...DEFAULT_DECODE_LIMITS, maxItems });
  } catch (error) {
    throw refuse(
      `the file holds more than ${maxItems.toLocaleString('en-US')} JSON items (objects, arrays and their elements)`,
      error,
    );
  }
  return parseRunSummary(head.data.toString('utf8'), file);
}

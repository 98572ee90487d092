import { readFile } from 'node:fs/promises';
import { parseRunSummary, type RunSummary } from '../decide/run-summary.js';
import { SpanscoreError } from '../errors/spanscore-error.js';

/** Reads a run summary file (`SS_INPUT_NOT_FOUND` when it cannot be read). */
export async function readSummary(file: string): Promise<RunSummary> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new SpanscoreError(
      'SS_INPUT_NOT_FOUND',
      `cannot read run summary: ${(error as Error).message}`,
      {
        location: { file },
        cause: error,
      },
    );
  }
  return parseRunSummary(text, file);
}

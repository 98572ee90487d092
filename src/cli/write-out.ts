import { writeFile } from 'node:fs/promises';
import { SpanscoreError } from '../errors/spanscore-error.js';

/** Writes an output file (`SS_USAGE` naming the option when it cannot be written). */
export async function writeOut(file: string, text: string, option: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new SpanscoreError(
      'SS_USAGE',
      `cannot write ${option} ${file}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

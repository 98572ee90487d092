import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SpanscoreError } from '../errors/spanscore-error.js';

/**
 * Writes an output file, creating its folder (`evals/suite.yaml` in a project with no `evals/`
 * yet); `SS_USAGE` naming the option when it cannot be written.
 */
export async function writeOut(file: string, text: string, option: string): Promise<void> {
  try {
    await mkdir(dirname(file), { recursive: true });
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

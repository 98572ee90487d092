import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this test run where `packedPackage()` packs spanscore once, for every file. */
    packageDir: string;
  }
}

/**
 * Gives the run one folder outside the repository for the packed package. Nothing is packed here:
 * only the files that install the package pay for the build (see test/helpers/packed-package.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'spanscore-packed-'));
  project.provide('packageDir', dir);
  return () => rm(dir, { recursive: true, force: true });
}

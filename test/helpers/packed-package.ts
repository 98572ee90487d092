import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * The path of spanscore as `npm pack` writes it (`spanscore-<version>.tgz`, from the run's build),
 * packed once per test run whichever test file asks first: the others wait for it, so two files
 * never build into `dist/` at once. The folder is the run's (test/setup/package-dir.global.ts).
 */
export async function packedPackage(): Promise<string> {
  const dir = inject('packageDir');
  const lock = join(dir, 'packing.lock');
  const done = join(dir, 'packed.json');
  try {
    await mkdir(lock);
  } catch {
    // Another file is packing: wait for its result.
    for (let i = 0; i < 2400; i++) {
      const packed = await readFile(done, 'utf8').catch(() => null);
      if (packed !== null) return (JSON.parse(packed) as { file: string }).file;
      await new Promise(r => setTimeout(r, 100));
    }
    throw new Error(`spanscore was not packed into ${dir} within 4 minutes`);
  }
  try {
    // Packed from the run's build (test/setup/build-dist.global.ts) without building again
    // (`prepack`): other tests run dist/ meanwhile, and must not read files being rewritten.
    const { stdout } = await run(
      'npm',
      ['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
      {
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    const file = join(dir, filename);
    // Written whole, then renamed into place: a waiting file reads it only once it is complete
    // (a plain write let one read it empty, and fail on JSON.parse).
    await writeFile(`${done}.tmp`, JSON.stringify({ file }));
    await rename(`${done}.tmp`, done);
    return file;
  } catch (error) {
    await rm(lock, { recursive: true, force: true });
    throw error;
  }
}

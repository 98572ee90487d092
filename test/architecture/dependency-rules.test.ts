import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise as depcruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const config = join(root, '.dependency-cruiser.cjs');

/**
 * The project's rules, read once: what `depcruise src --config .dependency-cruiser.cjs` (npm run
 * lint:deps) reads from the config.
 */
const rules = extractDepcruiseOptions(config);

/**
 * Runs the project's dependency rules over a small tree, as `depcruise src --config …` run in
 * `cwd` does, in this process: dependency-cruiser's API (`cruise`, the CLI's own call) with the
 * CLI's defaults (the `err` reporter, the tree's tsconfig.json), from `cwd` as its base folder.
 * Returns the exit code the CLI would give (its errors' count) and the output. (A `depcruise`
 * process per call loaded dependency-cruiser and TypeScript again each time: about 2 s of CPU a
 * call, 13 calls.)
 */
async function cruise(cwd: string): Promise<{ code: number; output: string }> {
  const tsConfig = join(cwd, 'tsconfig.json');
  const { output, exitCode } = await depcruise(
    ['src'],
    { ...(await rules), baseDir: cwd, outputType: 'err', tsConfig: { fileName: tsConfig } },
    {},
    { tsConfig: extractTSConfig(tsConfig) },
  );
  if (typeof output !== 'string') throw new Error('the err reporter writes text');
  return { code: exitCode, output };
}

describe('the architecture rules of npm run lint (dependency-cruiser)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spanscore-deps-'));
    await mkdir(join(dir, 'src/score'), { recursive: true });
    await mkdir(join(dir, 'src/queue'), { recursive: true });
    await writeFile(join(dir, 'tsconfig.json'), '{"compilerOptions":{"module":"nodenext"}}');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('pass on a tree with no cycle, where only the edges do I/O', async () => {
    await writeFile(join(dir, 'src/score/pure.ts'), 'export const x = 1;\n');
    await writeFile(
      join(dir, 'src/queue/edge.ts'),
      "import { createServer } from 'node:http';\nimport { x } from '../score/pure.js';\nexport const s = createServer, y = x;\n",
    );
    const { code, output } = await cruise(dir);
    expect(output).toContain('no dependency violations');
    expect(code).toBe(0);
  });

  it('fail on an import cycle and name its files', async () => {
    await writeFile(join(dir, 'src/a.ts'), "import { b } from './b.js';\nexport const a = b;\n");
    await writeFile(
      join(dir, 'src/b.ts'),
      "import type { a } from './a.js';\nexport const b = 1 as unknown as typeof a;\n",
    );
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/no-circular: src\/(a|b)\.ts/);
  });

  it('pass the cycle the custom-scorer loader closes by importing the package entry when a scorer loads, and no other through a dynamic import', async () => {
    const tree = await mkdtemp(join(tmpdir(), 'spanscore-deps-dynamic-'));
    try {
      await mkdir(join(tree, 'src/suite'), { recursive: true });
      await writeFile(join(tree, 'tsconfig.json'), '{"compilerOptions":{"module":"nodenext"}}');
      await writeFile(
        join(tree, 'src/index.ts'),
        "export { loadCustomScorers } from './suite/load-custom-scorers.js';\nexport { other } from './other.js';\n",
      );
      await writeFile(
        join(tree, 'src/suite/load-custom-scorers.ts'),
        "export const loadCustomScorers = async () => import('../index.js');\n",
      );
      await writeFile(join(tree, 'src/other.ts'), 'export const other = 1;\n');
      expect(await cruise(tree)).toMatchObject({ code: 0 });

      // The same cycle closed by any other module.
      await writeFile(
        join(tree, 'src/other.ts'),
        "export const other = async () => import('./index.js');\n",
      );
      let { code, output } = await cruise(tree);
      expect(code).not.toBe(0);
      expect(output).toMatch(/no-circular-dynamic: src\/(index|other)\.ts/);

      // Through the loader, but closed by another module's dynamic import.
      await writeFile(
        join(tree, 'src/suite/helper.ts'),
        "import { loadCustomScorers } from './load-custom-scorers.js';\nexport const helper = async () => [loadCustomScorers, await import('../other.js')];\n",
      );
      await writeFile(
        join(tree, 'src/other.ts'),
        "import { helper } from './suite/helper.js';\nexport const other = helper;\n",
      );
      ({ code, output } = await cruise(tree));
      expect(code).not.toBe(0);
      expect(output).toMatch(/no-circular-dynamic-but-the-entry: src\/(other|suite\/helper)\.ts/);
      await rm(join(tree, 'src/suite/helper.ts'));

      // The loader importing a module other than the entry, which imports the loader.
      await writeFile(
        join(tree, 'src/other.ts'),
        "import { loadCustomScorers } from './suite/load-custom-scorers.js';\nexport const other = loadCustomScorers;\n",
      );
      await writeFile(
        join(tree, 'src/suite/load-custom-scorers.ts'),
        "export const loadCustomScorers = async () => [await import('../index.js'), await import('../other.js')];\n",
      );
      ({ code, output } = await cruise(tree));
      expect(code).not.toBe(0);
      expect(output).toMatch(
        /no-circular-dynamic-but-the-entry: src\/(other|suite\/load-custom-scorers)\.ts/,
      );

      // The loader's import made static: a cycle at load time.
      await writeFile(join(tree, 'src/other.ts'), 'export const other = 1;\n');
      await writeFile(
        join(tree, 'src/suite/load-custom-scorers.ts'),
        "import * as spanscore from '../index.js';\nexport const loadCustomScorers = () => spanscore;\n",
      );
      ({ code, output } = await cruise(tree));
      expect(code).not.toBe(0);
      expect(output).toMatch(/no-circular: src\/(index|suite\/load-custom-scorers)\.ts/);
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  });

  it('fail when the pure core imports an I/O module', async () => {
    await rm(join(dir, 'src/a.ts'));
    await writeFile(
      join(dir, 'src/score/pure.ts'),
      "import { request } from 'node:http';\nexport const x = request;\n",
    );
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain('pure-core-no-io: src/score/pure.ts');
    expect(output).not.toContain('no-circular');
  });

  it('fail when shipped code imports a devDependency (users do not install those)', async () => {
    await writeFile(join(dir, 'src/score/pure.ts'), 'export const x = 1;\n');
    for (const name of ['dev-only', 'peer-ok']) {
      await mkdir(join(dir, 'node_modules', name), { recursive: true });
      await writeFile(
        join(dir, 'node_modules', name, 'package.json'),
        JSON.stringify({ name, version: '1.0.0', main: 'index.js' }),
      );
      await writeFile(join(dir, 'node_modules', name, 'index.js'), 'exports.v = 1;\n');
    }
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'tree',
        devDependencies: { 'dev-only': '1.0.0', 'peer-ok': '1.0.0' },
        peerDependencies: { 'peer-ok': '1.0.0' },
      }),
    );
    await writeFile(
      join(dir, 'src/queue/edge.ts'),
      "import { v } from 'dev-only';\nimport { v as w } from 'peer-ok';\nexport const y = v + w;\n",
    );
    await writeFile(
      join(dir, 'src/queue/edge.test.ts'),
      "import { v } from 'dev-only';\nexport const t = v;\n",
    );
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'no-dev-dependency-at-runtime: src/queue/edge.ts → node_modules/dev-only',
    );
    expect(output).not.toContain('peer-ok');
    expect(output).not.toContain('edge.test.ts');
  });

  it('fail when Redis code sits outside redis/, when redis/ reaches up, and when a stage imports another stage’s I/O', async () => {
    await writeFile(join(dir, 'src/queue/edge.ts'), 'export const y = 1;\n');
    await rm(join(dir, 'src/queue/edge.test.ts'));
    await mkdir(join(dir, 'node_modules/ioredis'), { recursive: true });
    await writeFile(
      join(dir, 'node_modules/ioredis/package.json'),
      JSON.stringify({ name: 'ioredis', version: '5.0.0', main: 'index.js' }),
    );
    await writeFile(join(dir, 'node_modules/ioredis/index.js'), 'exports.Redis = class {};\n');
    for (const folder of ['redis', 'results'])
      await mkdir(join(dir, 'src', folder), { recursive: true });
    // Allowed: redis/ owns the client; the driver (queue/) uses redis/; redis/ implements a
    // results interface.
    await writeFile(join(dir, 'src/results/store.ts'), 'export type Store = { n: number };\n');
    await writeFile(
      join(dir, 'src/redis/redis-store.ts'),
      "import { Redis } from 'ioredis';\nimport type { Store } from '../results/store.js';\nexport const make = (): Store => ({ n: Redis.length });\n",
    );
    await writeFile(
      join(dir, 'src/queue/bullmq-driver.ts'),
      "import { make } from '../redis/redis-store.js';\nexport const d = make;\n",
    );
    expect(await cruise(dir)).toMatchObject({ code: 0 });

    await writeFile(
      join(dir, 'src/results/redis-elsewhere.ts'),
      "import { Redis } from 'ioredis';\nexport const r = Redis;\n",
    );
    await writeFile(
      join(dir, 'src/redis/reaches-up.ts'),
      "import { d } from '../queue/bullmq-driver.js';\nexport const u = d;\n",
    );
    await writeFile(
      join(dir, 'src/results/uses-driver.ts'),
      "import { d } from '../queue/bullmq-driver.js';\nexport const w = d;\n",
    );
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'redis-in-one-place: src/results/redis-elsewhere.ts → node_modules/ioredis',
    );
    expect(output).toContain(
      'redis-below-the-stages: src/redis/reaches-up.ts → src/queue/bullmq-driver.ts',
    );
    expect(output).toContain(
      'no-stage-imports-another-stages-io: src/results/uses-driver.ts → src/queue/bullmq-driver.ts',
    );
    expect(output).not.toContain('src/redis/redis-store.ts →');
  });

  it('fail when protobuf/ or config/ reaches up into a stage, type-only imports included', async () => {
    for (const file of [
      'results/redis-elsewhere.ts',
      'redis/reaches-up.ts',
      'results/uses-driver.ts',
    ])
      await rm(join(dir, 'src', file));
    for (const folder of ['protobuf', 'config', 'ingest', 'judge', 'normalize'])
      await mkdir(join(dir, 'src', folder), { recursive: true });
    await writeFile(join(dir, 'src/ingest/digest.ts'), 'export type Value = string;\n');
    await writeFile(join(dir, 'src/judge/defaults.ts'), 'export const TIMEOUT = 1;\n');
    await writeFile(join(dir, 'src/normalize/repeats.ts'), 'export const MIN = 3;\n');
    // Allowed: the stages read config/ and protobuf/; config/ reads the pure core.
    await writeFile(
      join(dir, 'src/config/schema.ts'),
      "import { MIN } from '../normalize/repeats.js';\nexport type Config = { n: number };\nexport const min = MIN;\n",
    );
    await writeFile(join(dir, 'src/protobuf/writer.ts'), 'export const w = 1;\n');
    await writeFile(
      join(dir, 'src/judge/client.ts'),
      "import type { Config } from '../config/schema.js';\nimport { w } from '../protobuf/writer.js';\nexport const c = (x: Config) => x.n + w;\n",
    );
    expect(await cruise(dir)).toMatchObject({ code: 0 });

    await writeFile(
      join(dir, 'src/protobuf/writer.ts'),
      "import type { Value } from '../ingest/digest.js';\nexport const w = 1;\nexport type V = Value;\n",
    );
    await writeFile(
      join(dir, 'src/config/judge-schema.ts'),
      "import { TIMEOUT } from '../judge/defaults.js';\nexport const t = TIMEOUT;\n",
    );
    await writeFile(
      join(dir, 'src/config/receiver-schema.ts'),
      "import type { Value } from '../ingest/digest.js';\nexport type R = Value;\n",
    );
    const { code, output } = await cruise(dir);
    expect(code).not.toBe(0);
    expect(output).toContain(
      'protobuf-below-the-stages: src/protobuf/writer.ts → src/ingest/digest.ts',
    );
    expect(output).toContain(
      'config-below-the-stages: src/config/judge-schema.ts → src/judge/defaults.ts',
    );
    expect(output).toContain(
      'config-below-the-stages: src/config/receiver-schema.ts → src/ingest/digest.ts',
    );
    expect(output).not.toContain('src/config/schema.ts →');
    expect(output).not.toContain('src/judge/client.ts →');
  });
});

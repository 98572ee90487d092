import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user gets from the registry: the packed tarball, installed with vitest into a fresh
// project, its own test files run by its own vitest and typechecked against the published types.
const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const version = (pkg: string): Promise<string> =>
  readFile(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8').then(
    t => (JSON.parse(t) as { version: string }).version,
  );

/** The environment of a process outside this vitest run. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env))
    if (key.startsWith('VITEST') || key === 'NODE_OPTIONS' || key === 'TEST') delete env[key];
  return env;
}

const EXAMPLE = join(ROOT, 'examples', 'vitest-agent');

// Types: the matchers are on vitest's Assertion, with their parameter types.
const typesFile = `
import { expect } from 'vitest';
import type { CapturedTrace } from 'spanscore/vitest';

export async function typed(run: CapturedTrace<string>): Promise<void> {
  expect(run).toHaveUsedTools(['a']);
  // @ts-expect-error toHaveUsedTools takes an array of names
  expect(run).toHaveUsedTools('get_weather');
  // @ts-expect-error match is 'exact' or 'subsequence'
  expect(run).toHaveCalledToolsInOrder(['a'], { match: 'sorted' });
  await expect(run).toPassScorer('tool_correctness', { expectedTools: ['a'] });
}
`;

const failingTest = `
import { expect, it } from 'vitest';
import { captureTrace } from 'spanscore/vitest';
import { travelAgent } from './travel-agent.js';

it('expects the wrong tools', async () => {
  const run = await captureTrace(() => travelAgent('Book me a flight to NYC'));
  expect(run).toHaveUsedTools(['search_flights', 'cancel_booking']);
});
`;

/** The parts of vitest's JSON report read here. */
interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ message?: string; assertionResults: Array<{ failureMessages: string[] }> }>;
}

/** Every failure message in the report, suite-level errors included. */
function failuresOf(report: VitestReport): string[] {
  return report.testResults.flatMap(f => [
    ...(f.message ? [f.message] : []),
    ...f.assertionResults.flatMap(a => a.failureMessages),
  ]);
}

describe('the packed package in a fresh project, with vitest', () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'spanscore-vitest-'));
    await run('npm', ['run', 'build'], { cwd: ROOT });
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', project], {
      cwd: ROOT,
    });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'agent-app', private: true, type: 'module' }),
    );
    for (const file of ['tsconfig.json', 'travel-agent.ts', 'travel-agent.test.ts'])
      await copyFile(join(EXAMPLE, file), join(project, file));
    await writeFile(join(project, 'types.ts'), typesFile);
    await writeFile(join(project, 'wrong.test.ts'), failingTest);
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        `./${filename}`,
        `vitest@${await version('vitest')}`,
        `vite@${await version('vite')}`,
      ],
      { cwd: project, env: cleanEnv() },
    );
  }, 240_000);

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  });

  const vitest = (file: string) =>
    run(
      process.execPath,
      [
        'node_modules/vitest/vitest.mjs',
        'run',
        file,
        '--reporter=json',
        `--outputFile=${file}.json`,
      ],
      { cwd: project, env: cleanEnv() },
    ).then(
      () => ({ code: 0, output: '' }),
      (e: { code?: number; stdout?: string; stderr?: string }) => ({
        code: e.code ?? -1,
        output: `${e.stdout ?? ''}${e.stderr ?? ''}`,
      }),
    );

  it('runs the example (examples/vitest-agent) through the published spanscore/vitest entry point', async () => {
    const { code } = await vitest('travel-agent.test.ts');
    const report = JSON.parse(
      await readFile(join(project, 'travel-agent.test.ts.json'), 'utf8'),
    ) as VitestReport;
    expect(failuresOf(report)).toEqual([]);
    expect([code, report.numPassedTests, report.numFailedTests]).toEqual([0, 6, 0]);
  }, 120_000);

  it('fails a wrong expectation with a message naming the expected and the actual tools', async () => {
    expect((await vitest('wrong.test.ts')).code).toBe(1);
    const report = JSON.parse(
      await readFile(join(project, 'wrong.test.ts.json'), 'utf8'),
    ) as VitestReport;
    const message = failuresOf(report).join('\n');
    expect(message).toMatch(/Expected: +search_flights, cancel_booking/);
    expect(message).toMatch(/Tools used: +searchFlights, book_flight/);
    expect(message).toContain('missing cancel_booking; unexpected book_flight');
  }, 120_000);

  it('types the matchers on vitest’s Assertion (tsc, strict, against the installed types)', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => ({ code: 0, out: '' }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, out: e.stdout ?? '' }),
    );
    expect(result).toEqual({ code: 0, out: '' });
  }, 120_000);
});

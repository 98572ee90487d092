import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldRegistryEnv } from '../helpers/held-registry.js';
import { packedPackage } from '../helpers/packed-package.js';

// What a user gets from the registry: the packed tarball, installed with vitest into a fresh
// project, its own test files run by its own vitest and typechecked against the published types.
const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const version = (pkg: string): Promise<string> =>
  readFile(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8').then(
    t => (JSON.parse(t) as { version: string }).version,
  );

/** The environment of a process outside this vitest run, npm held to the tested registry. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...heldRegistryEnv() };
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
  expect(run).toMatchToolSnapshot({ args: 'ignore', mask: ['passenger.name'] });
  // @ts-expect-error args is 'exact', 'subset' or 'ignore'
  expect(run).toMatchToolSnapshot({ args: 'loose' });
  expect(run).toMatchInlineToolSnapshot({ args: 'exact' }, '"x"');
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

// A tool-sequence snapshot, on disk and inline: the agent books, or (SKIP_SEARCH=1) skips the search.
const snapshotTest = `
import { expect, it } from 'vitest';
import { captureTrace } from 'spanscore/vitest';
import { bookFlight, searchFlights } from './travel-agent.js';

async function agent() {
  const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;
  const found = env?.SKIP_SEARCH ? [] : await searchFlights({ from: 'LON', to: 'NYC', date: '2026-12-01' });
  return bookFlight(found[0]?.flight ?? 'LON-NYC-1');
}

it('books as it did when the snapshot was taken', async () => {
  const run = await captureTrace(agent);
  expect(run).toMatchToolSnapshot();
  expect(run).toMatchInlineToolSnapshot({ args: 'ignore' });
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
    const tarball = await packedPackage();
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'agent-app', private: true, type: 'module' }),
    );
    for (const file of ['tsconfig.json', 'travel-agent.ts', 'travel-agent.test.ts'])
      await copyFile(join(EXAMPLE, file), join(project, file));
    await writeFile(join(project, 'types.ts'), typesFile);
    await writeFile(join(project, 'wrong.test.ts'), failingTest);
    await writeFile(join(project, 'snapshot.test.ts'), snapshotTest);
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball,
        `vitest@${await version('vitest')}`,
        `vite@${await version('vite')}`,
      ],
      { cwd: project, env: cleanEnv() },
    );
  }, 240_000);

  // Removing an installed node_modules takes seconds on a loaded CI host: more than the hook default.
  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true });
  }, 120_000);

  const vitest = (file: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
    run(
      process.execPath,
      [
        'node_modules/vitest/vitest.mjs',
        'run',
        file,
        ...extra,
        '--reporter=json',
        `--outputFile=${file}.json`,
      ],
      { cwd: project, env: { ...cleanEnv(), ...env } },
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

  it('writes a tool snapshot, passes on it, fails when the agent calls another tool, passes after -u', async () => {
    // Not in CI mode: there vitest refuses to write a snapshot that does not exist yet.
    const local = { CI: '', GITHUB_ACTIONS: '' };
    const report = async () =>
      JSON.parse(await readFile(join(project, 'snapshot.test.ts.json'), 'utf8')) as VitestReport;
    expect((await vitest('snapshot.test.ts', [], local)).code).toBe(0);
    const stored = await readFile(join(project, '__snapshots__', 'snapshot.test.ts.snap'), 'utf8');
    expect(stored).toContain('searchFlights({"date":"2026-12-01","from":"LON","to":"NYC"})');
    expect(stored).toContain('book_flight("LON-NYC-1")');
    // The inline snapshot was written into the test file, after the options.
    expect(await readFile(join(project, 'snapshot.test.ts'), 'utf8')).toMatch(
      /toMatchInlineToolSnapshot\(\{ args: 'ignore' \}, `\s+"\s+searchFlights\(\)\s+book_flight\(\)\s+"\s+`\)/,
    );
    expect((await vitest('snapshot.test.ts', [], local)).code).toBe(0);

    const skipping = { ...local, SKIP_SEARCH: '1' };
    expect((await vitest('snapshot.test.ts', [], skipping)).code).toBe(1);
    const message = failuresOf(await report()).join('\n');
    expect(message).toContain('mismatched');
    expect((await report()).numFailedTests).toBe(1);

    expect((await vitest('snapshot.test.ts', ['-u'], skipping)).code).toBe(0);
    expect(
      await readFile(join(project, '__snapshots__', 'snapshot.test.ts.snap'), 'utf8'),
    ).not.toContain('searchFlights');
    expect((await vitest('snapshot.test.ts', [], skipping)).code).toBe(0);
  }, 180_000);

  it('types the matchers on vitest’s Assertion (tsc, strict, against the installed types)', async () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => ({ code: 0, out: '' }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, out: e.stdout ?? '' }),
    );
    expect(result).toEqual({ code: 0, out: '' });
  }, 120_000);
});

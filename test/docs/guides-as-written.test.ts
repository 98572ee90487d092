import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideSteps, type GuideStep } from '../helpers/guide-steps.js';
import { heldRegistryEnv } from '../helpers/held-registry.js';
import { docPages } from '../helpers/markdown-docs.js';
import { packedPackage } from '../helpers/packed-package.js';

/**
 * The guides, followed as a new user follows them: every block they ask the reader to run or save,
 * exactly as printed (file names and commands included), in a fresh folder outside the
 * repository, with spanscore installed from the packed package. The pages go on from one another
 * in one `my-agent` project, in this order. The one thing supplied instead of done: the clone of
 * "this repository" (a placeholder) and its `npm pack`, whose result (the tarball) is put where `npm pack` would.
 * npm may use its cache (`prefer-offline`, as in CI), and resolves every package, transitive ones
 * included, as the registry stood when the tests last passed (`before`, test/helpers/held-registry.ts):
 * the reader's commands are run as printed, only the registry they meet is held still.
 * Everything else is the reader's.
 */
const GUIDES = ['docs/getting-started.md', 'docs/vitest.md', 'docs/recording.md', 'docs/ci.md'];
const pages = docPages();

/** What `git clone <this repository> spanscore` and its `npm pack` leave, made from the tarball. */
const CHECKOUT = [
  'git clone <this repository> spanscore',
  'cd spanscore && npm ci && npm pack && cd ..',
];

/** The environment of a reader's shell: nothing of this test run, no spanscore or OTel settings. */
function readerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(VITEST|TEST$|NODE_OPTIONS$|REDIS_URL$|SPANSCORE_|OTEL_|npm_|INIT_CWD$)/.test(key))
      env[key] = value;
  return {
    ...env,
    NO_COLOR: '1',
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...heldRegistryEnv(),
    ...extra,
  };
}

interface Shell {
  code: number | null;
  output: string;
}

/** Runs `code` with bash in `cwd` as a reader's terminal would, stopping at the first failing line. */
function sh(code: string, cwd: string, pwdFile: string, env = readerEnv()): Promise<Shell> {
  return new Promise(done => {
    const child = spawn('bash', ['-c', `set -eo pipefail\n${code}\npwd > "${pwdFile}"`], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', code => done({ code, output }));
  });
}

async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise(done => {
    server.once('error', () => done(false));
    server.listen(port, () => server.close(() => done(true)));
  });
}

describe('the guides, run as written against the packed package', () => {
  let workspace: string;
  let cwd: string;
  const pwdFile = () => join(workspace, '.pwd');
  const services: Array<{ child: ChildProcess; output: () => string; where: string }> = [];

  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'spanscore-guides-'));
    cwd = workspace;
  });
  afterAll(async () => {
    for (const { child } of services)
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    if (workspace) await rm(workspace, { recursive: true, force: true });
  }, 120_000); // the workspace holds installed packages: removing them outlasts the hook default under load

  /**
   * Ctrl-C in the terminal of each service the page started: it stops by itself, promptly, and
   * leaves nothing running. (Its exit status is npx's: npm exits by the signal it was sent.)
   */
  async function stopServices(): Promise<void> {
    while (services.length) {
      const { child, output, where } = services.pop()!;
      const exited = new Promise<string>(done =>
        child.on('exit', (code, signal) => done(`${code ?? signal}`)),
      );
      process.kill(-child.pid!, 'SIGINT');
      const how = await Promise.race([
        exited,
        new Promise<string>(r => setTimeout(() => r('still running after 15 s'), 15_000)),
      ]);
      expect(['0', 'SIGINT'], `${where}: Ctrl-C\n${output()}`).toContain(how);
      expect(output(), where).toMatch(/spanscore: stopped\n$/);
      expect(output(), where).not.toMatch(/unfinished|Error:/);
      // Nothing of the process group is left.
      await new Promise(r => setTimeout(r, 200));
      expect(() => process.kill(-child.pid!, 0), `${where}: processes left`).toThrow();
    }
  }

  async function perform(step: GuideStep): Promise<void> {
    const at = `${step.where}`;
    switch (step.kind) {
      case 'checkout': {
        expect(step.code.split('\n'), `${at}: the checkout lines the test stands in for`).toEqual(
          CHECKOUT,
        );
        const tarball = await packedPackage();
        await mkdir(join(cwd, 'spanscore'), { recursive: true });
        await copyFile(tarball, join(cwd, 'spanscore', basename(tarball)));
        return;
      }
      case 'save': {
        const file = resolve(cwd, step.file);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, `${step.code}\n`);
        return;
      }
      case 'run': {
        const deadline = Date.now() + (step.retry ? 20_000 : 0);
        for (;;) {
          const result = await sh(step.code, cwd, pwdFile());
          const ok =
            result.code === step.exit &&
            (step.expect === null || result.output.includes(step.expect));
          if (ok || Date.now() >= deadline) {
            expect(result.code, `${at}: exit code of\n${step.code}\n${result.output}`).toBe(
              step.exit,
            );
            if (step.expect !== null) expect(result.output, at).toContain(step.expect);
            if (step.exit === 0) cwd = (await readFile(pwdFile(), 'utf8')).trim();
            return;
          }
          await new Promise(r => setTimeout(r, 500));
        }
      }
      case 'start': {
        if (step.code.includes('serve') && !step.code.includes('--port'))
          expect(await portFree(4318), `${at}: port 4318 must be free to follow the page`).toBe(
            true,
          );
        const child = spawn('bash', ['-c', step.code], {
          cwd,
          env: readerEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true, // its own process group, as a terminal's foreground job: Ctrl-C reaches all
        });
        let output = '';
        child.stdout.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr.on('data', (d: Buffer) => (output += d.toString()));
        services.push({ child, output: () => output, where: at });
        const deadline = Date.now() + 60_000;
        while (!output.includes(step.expect)) {
          expect(child.exitCode, `${at}: exited early\n${output}`).toBeNull();
          expect(Date.now() < deadline, `${at}: no "${step.expect}" within 60 s\n${output}`).toBe(
            true,
          );
          await new Promise(r => setTimeout(r, 100));
        }
        return;
      }
      case 'workflow': {
        if (step.file) {
          const file = resolve(cwd, step.file);
          await mkdir(dirname(file), { recursive: true });
          await writeFile(file, `${step.code}\n`);
        }
        const doc = parse(step.code) as unknown;
        const steps = (
          Array.isArray(doc)
            ? doc
            : Object.values((doc as { jobs: Record<string, { steps: unknown[] }> }).jobs).flatMap(
                j => j.steps,
              )
        ) as Array<{ run?: string; uses?: string; if?: string }>;
        expect(
          steps.some(s => s.run),
          `${at}: a workflow with run steps`,
        ).toBe(true);
        const summary = join(workspace, 'step-summary.md');
        for (const s of steps.filter(s => s.run)) {
          // What GitHub substitutes before the shell sees the line.
          const command = s.run!.replaceAll(
            '${{ github.sha }}',
            '0123456789abcdef0123456789abcdef01234567',
          );
          expect(command, `${at}: an expression this test does not stand in for`).not.toContain(
            '${{',
          );
          const result = await sh(
            command,
            cwd,
            pwdFile(),
            readerEnv({ GITHUB_STEP_SUMMARY: summary, CI: 'true' }),
          );
          expect(result.code, `${at}: step\n${command}\n${result.output}`).toBe(0);
        }
        return;
      }
      case 'not run':
        return;
    }
  }

  it('install pinned releases, the framework ones those frameworks.md names as tested', () => {
    const frameworks = pages.find(p => p.file === 'docs/frameworks.md')!.text;
    const installs = GUIDES.flatMap(file =>
      guideSteps(pages.find(p => p.file === file)!)
        .filter(s => s.kind === 'run')
        .flatMap(s =>
          s.code
            .split('\n')
            .filter(l => /^npm install /.test(l))
            .map(l => [s.where, l]),
        ),
    );
    expect(installs.length).toBeGreaterThanOrEqual(3);
    for (const [where, line] of installs)
      for (const spec of line!
        .split(/\s+/)
        .slice(2)
        .filter(a => !a.startsWith('-'))) {
        if (spec.startsWith('./')) continue; // the packed spanscore
        expect(spec, `${where}: ${spec} is pinned`).toMatch(/^(@[^/@]+\/)?[^@]+@\d+\.\d+\.\d+$/);
      }
    const ai = /\bai@(\d+\.\d+\.\d+)/.exec(installs.map(i => i[1]).join('\n'))?.[1];
    expect(frameworks).toContain(`\`ai\` ${ai}`);
  });

  it('getting-started, vitest, recording and ci, in that order, in one project', async () => {
    for (const file of GUIDES) {
      const page = pages.find(p => p.file === file)!;
      for (const step of guideSteps(page)) await perform(step);

      const project = join(workspace, 'my-agent');
      if (file === 'docs/getting-started.md') {
        // Both scorers passed, for the service name the agent set.
        const body = (await (await fetch('http://127.0.0.1:4318/api/v1/results')).json()) as {
          results: Array<{
            testCaseId: string;
            scorer: string;
            label: string;
            serviceName: string;
          }>;
        };
        expect(
          body.results.map(r => [r.testCaseId, r.scorer, r.label, r.serviceName]).sort(),
        ).toEqual([
          ['weather-paris', 'tool_call_accuracy', 'pass', 'weather-agent'],
          ['weather-paris', 'tool_correctness', 'pass', 'weather-agent'],
        ]);
        // The start-up lines the page tells the reader to expect.
        expect(services[0]!.output()).toMatch(/memory/);
        expect(services[0]!.output()).toContain('evaluation spans are not exported');
        expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))).toMatchObject({
          devDependencies: {
            spanscore: expect.stringMatching(/^file:vendor\/spanscore-[\d.]+\.tgz$/),
          },
        });
      }
      if (file === 'docs/recording.md') {
        // The recorded suite's $schema resolves, from where the suite is, in the installed package.
        const suite = await readFile(join(project, 'evals', 'suite.yaml'), 'utf8');
        const [, schema] = /^# yaml-language-server: \$schema=(\S+)$/m.exec(suite) ?? [];
        expect(schema).toBe('../node_modules/spanscore/schema/suite.schema.json');
        expect(existsSync(join(project, 'evals', schema!))).toBe(true);
        expect(suite).toMatch(/weather\(\{"city":"Lyon"\}\)|city: Lyon/);
      }
      if (file === 'docs/ci.md') {
        const summary = await readFile(join(workspace, 'step-summary.md'), 'utf8');
        expect(summary).toContain('### spanscore: ✅ passed --fail-on regression');
        expect(existsSync(join(project, 'report.html'))).toBe(true);
      }
      await stopServices();
    }
  }, 600_000);
});

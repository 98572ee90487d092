import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli-process.js';
import { startOpenAiCompatibleServer } from '../helpers/openai-compatible-server.js';

/**
 * What a CLI process loads before it does its work, counted: every module Node's ESM loader loads
 * (a `module.register` hook that appends each URL to a file; CommonJS files a package requires
 * inside itself are not seen). Each module is a file read, resolved and compiled at start: the
 * `openai` package alone is about 150, and a test run starts the CLI over a hundred times.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/otlp');
const dir = mkdtempSync(join(tmpdir(), 'spanscore-loaded-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOK = join(dir, 'record-loads.mjs');
writeFileSync(
  HOOK,
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.LOADED_MODULES_FILE, process.pid + ' ' + url + '\\\\n');
  return next(url, context);
}\`));
`,
);

let runs = 0;
/** A file the hook writes to, and the environment that loads the hook in every process. */
function recording(): { file: string; env: Record<string, string> } {
  const file = join(dir, `loaded-${++runs}.txt`);
  writeFileSync(file, '');
  return { file, env: { NODE_OPTIONS: `--import=${HOOK}`, LOADED_MODULES_FILE: file } };
}

/** The URLs each process loaded, by pid. */
function loadedByProcess(file: string): Map<string, string[]> {
  const byPid = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [pid, url] = line.split(' ') as [string, string];
    byPid.set(pid, [...(byPid.get(pid) ?? []), url]);
  }
  return byPid;
}

const fromPackage = (urls: string[], name: string): string[] =>
  urls.filter(u => u.includes(`/node_modules/${name}/`));

describe('what the CLI loads at start', { timeout: 90_000 }, () => {
  it('`score` without a judge or a custom scorer loads neither openai nor jiti', async () => {
    const { file, env } = recording();
    const cli = startCli(
      ['score', '--suite', join(ROOT, 'config/suites/demo.yaml'), FIXTURES],
      env,
    );
    expect(await cli.exited, cli.stderr()).toBe(1); // the demo suite's cases do not match these traces
    const [urls, ...others] = [...loadedByProcess(file).values()];
    expect(others).toEqual([]);
    // The hook saw the run: the scorers and the config schema's zod were loaded.
    expect(urls!.some(u => u.endsWith('/dist/score/score-suite.js'))).toBe(true);
    expect(fromPackage(urls!, 'zod').length).toBeGreaterThan(10);
    expect(fromPackage(urls!, 'openai')).toEqual([]);
    expect(fromPackage(urls!, 'jiti')).toEqual([]);
    // 312 when this was written (2026-11-30); 466 with openai loaded up front.
    expect(urls!.length).toBeLessThan(400);
  });

  it('`--version` loads no command', async () => {
    const { file, env } = recording();
    const cli = startCli(['--version'], env);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout().trim()).toMatch(/^\d+\.\d+\.\d+/);
    const [urls] = [...loadedByProcess(file).values()];
    expect(urls!.filter(u => u.includes('/dist/cli/commands/'))).toEqual([]);
    expect(urls!.length).toBeLessThan(30);
  });

  it('a suite with a TypeScript scorer loads jiti to compile it, and still not openai', async () => {
    const { file, env } = recording();
    const cli = startCli(
      ['score', '--suite', join(ROOT, 'config/suites/weather-agent.yaml'), FIXTURES],
      env,
    );
    await cli.exited;
    expect(cli.stdout()).toMatch(/weather/);
    const [urls] = [...loadedByProcess(file).values()];
    expect(fromPackage(urls!, 'jiti').length).toBeGreaterThan(0);
    expect(fromPackage(urls!, 'openai')).toEqual([]);
  });

  it('`serve` (memory driver, restarted with a bounded heap) is ready with neither in either process', async () => {
    const { file, env } = recording();
    const cli = startCli(['serve', '--port', '0', '--host', '127.0.0.1'], {
      ...env,
      SPANSCORE_EXPORT: 'false',
    });
    try {
      await cli.waitForLine(/results page at/, 60_000);
    } finally {
      cli.child.kill('SIGINT');
      await cli.exited;
    }
    const processes = [...loadedByProcess(file).values()];
    // The process the user started, and the service it started again with a bounded heap.
    expect(processes).toHaveLength(2);
    const [parent, service] = processes.sort((a, b) => a.length - b.length) as [string[], string[]];
    expect(service.some(u => u.endsWith('/dist/ingest/otlp-http-receiver.js'))).toBe(true);
    for (const urls of processes) {
      expect(fromPackage(urls, 'openai')).toEqual([]);
      expect(fromPackage(urls, 'jiti')).toEqual([]);
    }
    // The parent reads the config and starts the service: no receiver, no queue.
    expect(parent.some(u => u.includes('/dist/ingest/'))).toBe(false);
    expect(parent.length).toBeLessThan(300);
  });

  it('a judge loads openai on its first call, and answers through it', async () => {
    const server = await startOpenAiCompatibleServer([
      {
        completion: {
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'scripted',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: '{"verdict":"yes"}' },
            },
          ],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        },
      },
    ]);
    try {
      const { file, env } = recording();
      const script = `
import { appendFileSync } from 'node:fs';
const { createOpenAiJudge } = await import(${JSON.stringify(join(ROOT, 'dist/judge/openai-judge.js'))});
const judge = createOpenAiJudge({ apiKey: 'x', baseURL: ${JSON.stringify(server.baseURL)} });
appendFileSync(process.env.LOADED_MODULES_FILE, process.pid + ' created\\n');
const answer = await judge.ask({
  model: 'scripted', system: 's', user: 'u', schemaName: 'verdict',
  jsonSchema: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] },
  parse: v => v,
});
console.log(JSON.stringify(answer.output));
`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--input-type=module', '-e', script],
        { env: { ...process.env, ...env } },
      );
      expect(JSON.parse(stdout)).toEqual({ verdict: 'yes' });
      expect(server.requests).toHaveLength(1);
      const [urls] = [...loadedByProcess(file).values()];
      const created = urls!.indexOf('created');
      expect(created).toBeGreaterThan(0);
      expect(fromPackage(urls!.slice(0, created), 'openai')).toEqual([]);
      expect(fromPackage(urls!.slice(created), 'openai').length).toBeGreaterThan(10);
    } finally {
      await server.close();
    }
  });

  it('keeps the bytecode it compiled for the next start where Node can (22.1 and later)', async () => {
    const cacheDir = join(dir, 'compile-cache');
    const cli = startCli(['score', '--help'], { NODE_COMPILE_CACHE: cacheDir });
    expect(await cli.exited).toBe(0);
    const cached = existsSync(cacheDir) ? readdirSync(cacheDir, { recursive: true }).length : 0;
    if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function')
      expect(cached).toBeGreaterThan(100); // the modules `score` loads, each kept
    else expect(cached).toBe(0); // Node 20: nothing is cached, nothing else changes
  });
});

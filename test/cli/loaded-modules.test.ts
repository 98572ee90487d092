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
 * (a `module.register` hook that appends each URL to a file, with the process and the thread that
 * loaded it; CommonJS files a package requires inside itself are not seen). Each module is a file read, resolved and compiled at start: the
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
import { threadId } from 'node:worker_threads';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
let thread;
export function initialize(data) { thread = data.threadId; }
export async function load(url, context, next) {
  if (!url.startsWith('node:')) appendFileSync(process.env.LOADED_MODULES_FILE, process.pid + '/' + thread + ' ' + url + '\\\\n');
  return next(url, context);
}\`), { data: { threadId } });
`,
);

let runs = 0;
/** A file the hook writes to, and the environment that loads the hook in every process. */
function recording(): { file: string; env: Record<string, string> } {
  const file = join(dir, `loaded-${++runs}.txt`);
  writeFileSync(file, '');
  return { file, env: { NODE_OPTIONS: `--import=${HOOK}`, LOADED_MODULES_FILE: file } };
}

/** The URLs each thread of each process loaded, by `pid/threadId`. */
function loadedByThread(file: string): Map<string, string[]> {
  const byThread = new Map<string, string[]>();
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [thread, url] = line.split(' ') as [string, string];
    byThread.set(thread, [...(byThread.get(thread) ?? []), url]);
  }
  return byThread;
}

/**
 * What `serve` (memory driver, `queue.memoryThreads` as given) loaded by the time its results page
 * was up, by `pid/threadId`: two threads of one process, checked here.
 */
async function serveLoads(memoryThreads: '1' | '2'): Promise<Array<[string, string[]]>> {
  const { file, env } = recording();
  const cli = startCli(['serve', '--port', '0', '--host', '127.0.0.1'], {
    ...env,
    SPANSCORE_EXPORT: 'false',
    SPANSCORE_MEMORY_THREADS: memoryThreads,
  });
  try {
    await cli.waitForLine(/results page at/, 60_000);
  } finally {
    cli.child.kill('SIGINT');
    await cli.exited;
  }
  const threads = [...loadedByThread(file)];
  expect(new Set(threads.map(([thread]) => thread.split('/')[0]))).toEqual(
    new Set([String(cli.child.pid)]),
  );
  expect(threads).toHaveLength(2);
  return threads;
}

const fromPackage = (urls: string[], name: string): string[] =>
  urls.filter(u => u.includes(`/node_modules/${name}/`));

/** A scripted judge's answer, and a request it answers. */
const VERDICT = {
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
};
const ASK = `{
  model: 'scripted', system: 's', user: 'u', schemaName: 'verdict',
  jsonSchema: { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] },
  parse: v => v,
}`;

describe('what the CLI loads at start', { timeout: 90_000 }, () => {
  it('`score` without a judge or a custom scorer loads neither openai nor jiti', async () => {
    const { file, env } = recording();
    const cli = startCli(
      ['score', '--suite', join(ROOT, 'config/suites/demo.yaml'), FIXTURES],
      env,
    );
    expect(await cli.exited, cli.stderr()).toBe(1); // the demo suite's cases do not match these traces
    const [urls, ...others] = [...loadedByThread(file).values()];
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
    const [urls] = [...loadedByThread(file).values()];
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
    const [urls] = [...loadedByThread(file).values()];
    expect(fromPackage(urls!, 'jiti').length).toBeGreaterThan(0);
    expect(fromPackage(urls!, 'openai')).toEqual([]);
  });

  it('`serve` (memory driver, on two threads) is ready with neither in either thread, each thread loading its own part', async () => {
    const threads = await serveLoads('2');
    // The thread that receives (the main one), and the scoring thread.
    const receiving = threads.find(([thread]) => thread.endsWith('/0'))![1];
    const scoring = threads.find(([thread]) => !thread.endsWith('/0'))![1];
    for (const urls of [receiving, scoring]) {
      expect(fromPackage(urls, 'openai')).toEqual([]);
      expect(fromPackage(urls, 'jiti')).toEqual([]);
    }
    // The receiving thread: the HTTP server and the decoders, not the trace assembler or the
    // scoring loop; the scoring thread: those, and no HTTP server.
    expect(receiving.some(u => u.endsWith('/dist/ingest/otlp-http-receiver.js'))).toBe(true);
    expect(receiving.some(u => u.endsWith('/dist/queue/memory-trace-assembler.js'))).toBe(false);
    expect(receiving.some(u => u.endsWith('/dist/score/score-trace.js'))).toBe(false);
    // Only the starter that runs: not the one-thread service's, nor the driver it would start.
    expect(receiving.some(u => u.endsWith('/dist/server/start-service.js'))).toBe(false);
    expect(receiving.some(u => u.endsWith('/dist/queue/memory-queue-driver.js'))).toBe(false);
    expect(scoring.some(u => u.endsWith('/dist/queue/memory-trace-assembler.js'))).toBe(true);
    expect(scoring.some(u => u.endsWith('/dist/server/scoring-thread.js'))).toBe(true);
    expect(scoring.some(u => u.endsWith('/dist/score/score-trace.js'))).toBe(true);
    expect(fromPackage(scoring, 'fastify')).toEqual([]);
  });

  it('`serve` on one thread (queue.memoryThreads: 1, the default: its service in a thread with a bounded heap) is ready with neither in either thread', async () => {
    const threads = await serveLoads('1');
    // The thread the user's command runs on, and the service's bounded thread.
    const [parent, service] = threads
      .map(([, urls]) => urls)
      .sort((a, b) => a.length - b.length) as [string[], string[]];
    expect(service.some(u => u.endsWith('/dist/ingest/otlp-http-receiver.js'))).toBe(true);
    expect(service.some(u => u.endsWith('/dist/cli/bounded-heap-thread.js'))).toBe(true);
    for (const urls of [parent, service]) {
      expect(fromPackage(urls, 'openai')).toEqual([]);
      expect(fromPackage(urls, 'jiti')).toEqual([]);
    }
    // The main thread reads the config and starts the service: no receiver, no queue (131
    // modules when this was written, 2026-12-02).
    expect(parent.some(u => u.includes('/dist/ingest/'))).toBe(false);
    expect(parent.length).toBeLessThan(300);
  });

  it('a judge loads openai on its first call, and answers through it at the endpoint it was made with', async () => {
    const server = await startOpenAiCompatibleServer([{ completion: VERDICT }]);
    try {
      const { file, env } = recording();
      const script = `
import { appendFileSync } from 'node:fs';
const { createOpenAiJudge } = await import(${JSON.stringify(join(ROOT, 'dist/judge/openai-judge.js'))});
// The endpoint from OPENAI_BASE_URL as it is when the judge is made, as before the lazy load.
const judge = createOpenAiJudge({ apiKey: 'x' });
const childEnv = process.env; // this script's process, not the test's
childEnv.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
appendFileSync(process.env.LOADED_MODULES_FILE, process.pid + '/0 created\\n');
const answer = await judge.ask(${ASK});
console.log(JSON.stringify(answer.output));
`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--input-type=module', '-e', script],
        { env: { ...process.env, ...env, OPENAI_BASE_URL: server.baseURL } },
      );
      expect(JSON.parse(stdout)).toEqual({ verdict: 'yes' });
      expect(server.requests).toHaveLength(1);
      const [urls] = [...loadedByThread(file).values()];
      const created = urls!.indexOf('created');
      expect(created).toBeGreaterThan(0);
      expect(fromPackage(urls!.slice(0, created), 'openai')).toEqual([]);
      expect(fromPackage(urls!.slice(created), 'openai').length).toBeGreaterThan(10);
    } finally {
      await server.close();
    }
  });

  it('keeps the bytecode it compiled for the next start where Node can (22.8 and later)', async () => {
    // Node's default folder, under the system's temporary one: nothing in the environment asks
    // for a cache (NODE_COMPILE_CACHE would make Node 22.1 and later cache by itself).
    const tmp = mkdtempSync(join(dir, 'tmp-'));
    const cli = startCli(['score', '--help'], {
      TMPDIR: tmp,
      NODE_COMPILE_CACHE: undefined,
      NODE_DISABLE_COMPILE_CACHE: undefined,
    });
    expect(await cli.exited).toBe(0);
    const cacheDir = join(tmp, 'node-compile-cache');
    const cached = existsSync(cacheDir) ? readdirSync(cacheDir, { recursive: true }).length : 0;
    if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function')
      expect(cached).toBeGreaterThan(100); // the modules `score` loads, each kept
    else expect(cached).toBe(0); // Node 20: nothing is cached, nothing else changes
  });

  it('a judge whose openai package fails to load says so in its own error, and loads it on the next call', async () => {
    const server = await startOpenAiCompatibleServer([{ completion: VERDICT }]);
    try {
      // A resolve hook that fails the first import of openai (as a full file table would).
      const failOnce = join(dir, 'fail-openai-once.mjs');
      writeFileSync(
        failOnce,
        `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
let failed = false;
export async function resolve(specifier, context, next) {
  if (specifier === 'openai' && !failed) { failed = true; throw new Error('EMFILE: too many open files'); }
  return next(specifier, context);
}\`));
`,
      );
      const script = `
const { createOpenAiJudge } = await import(${JSON.stringify(join(ROOT, 'dist/judge/openai-judge.js'))});
const judge = createOpenAiJudge({ apiKey: 'x', baseURL: ${JSON.stringify(server.baseURL)} });
const ask = () => judge.ask(${ASK});
const first = await ask().then(() => 'answered', e => e.code + ': ' + e.message);
const second = await ask().then(a => JSON.stringify(a.output), e => e.code + ': ' + e.message);
console.log(JSON.stringify({ first, second }));
`;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [`--import=${failOnce}`, '--input-type=module', '-e', script],
        { env: { ...process.env, NODE_OPTIONS: undefined } },
      );
      const { first, second } = JSON.parse(stdout) as { first: string; second: string };
      expect(first).toMatch(/^SS_JUDGE_UNAVAILABLE: .*could not be loaded: EMFILE/);
      expect(second).toBe('{"verdict":"yes"}');
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

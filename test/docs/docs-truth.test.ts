import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { anchorsOf, docPages, markedBlocks, ROOT, walk } from '../helpers/markdown-docs.js';
import { CLI_ENTRY } from '../helpers/cli-entry.js';

const exec = promisify(execFile);
const pages = docPages();
const byFile = new Map(pages.map(p => [p.file, p]));

/** Runs the CLI in this process, as `spanscore ...args`; `--help` writes to stdout. */
async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const { code, stdout } = await runCli(args);
  return { code, out: stdout };
}

describe('the docs', () => {
  it('keep the README short: at most 250 lines', () => {
    expect(byFile.get('README.md')!.text.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('start every docs/ page with what it is for', () => {
    const guides = pages.filter(p => p.file.startsWith('docs/'));
    expect(guides.map(p => p.file).sort()).toEqual(
      [
        'api',
        'architecture',
        'ci',
        'configuration',
        'errors',
        'frameworks',
        'getting-started',
        'llm-scorers',
        'operations',
        'performance',
        'recording',
        'results-and-dashboards',
        'service',
        'sessions',
        'suites-and-scorers',
        'vitest',
      ].map(name => `docs/${name}.md`),
    );
    for (const page of guides.filter(p => p.file !== 'docs/configuration.md'))
      expect(page.text, page.file).toMatch(/^# .+\n\nWhat this page is for: /);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of pages) {
      for (const { node } of walk(page.tree)) {
        if (node.type !== 'link' && node.type !== 'image') continue;
        const url = node.url;
        if (/^[a-z]+:/i.test(url)) continue; // http(s), mailto: not ours to check here
        checked++;
        const [path, anchor] = url.split('#') as [string, string | undefined];
        const target = path
          ? join(dirname(join(ROOT, page.file)), decodeURI(path))
          : ROOT + page.file;
        const where = `${page.file}:${node.position?.start.line}: ${url}`;
        if (!existsSync(target)) {
          broken.push(`${where} (no such file)`);
          continue;
        }
        if (anchor && target.endsWith('.md') && statSync(target).isFile()) {
          const linked = byFile.get(target.slice(ROOT.length));
          if (linked && !anchorsOf(linked).has(anchor)) broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it('show each command with the synopsis its --help prints', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    const listed = top.out.slice(top.out.indexOf('Commands:'));
    const commands = [...listed.matchAll(/^ {2}([a-z]+)\b/gm)]
      .map(m => m[1]!)
      .filter(c => c !== 'help');
    expect(commands.sort()).toEqual([
      'compare',
      'demo',
      'inspect',
      'jobs',
      'score',
      'serve',
      'suite',
      'worker',
    ]);
    const codeLines = new Set(
      pages.flatMap(p =>
        [...walk(p.tree)].flatMap(({ node }) =>
          node.type === 'code' ? node.value.split('\n') : [],
        ),
      ),
    );
    for (const command of [...commands.map(c => [c]), ['jobs', 'retry'], ['suite', 'record']]) {
      const help = await cli([...command, '--help']);
      expect(help.code).toBe(0);
      const usage = /^Usage: (spanscore .+)$/m.exec(help.out)?.[1];
      expect(usage, `${command.join(' ')} --help has a usage line`).toBeDefined();
      expect(codeLines, `the docs show "${usage}" in a code block`).toContain(usage);
      // The synopsis names every option --help lists.
      for (const [, option] of help.out.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm))
        if (option !== '--help') expect(usage, `${command.join(' ')}: ${option}`).toContain(option);
    }
  });

  it('run every command marked runnable, exiting as they say', async () => {
    const blocks = pages.flatMap(p => markedBlocks(p, /^<!-- runnable: exit (\d+) -->$/));
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) {
      for (const line of block.code.split('\n').filter(l => l.trim())) {
        // `npm start -- X` and `spanscore X` run the CLI from source, as the built one would.
        const args = /^(?:npm start --|spanscore) (.+)$/.exec(line)?.[1]?.split(/\s+/);
        expect(
          args,
          `${block.where}: a runnable line is a spanscore command: ${line}`,
        ).toBeDefined();
        const run = await exec(process.execPath, [CLI_ENTRY, ...args!], {
          cwd: ROOT,
          env: { ...process.env, REDIS_URL: '', SPANSCORE_REDIS_URL: '', NO_COLOR: '1' },
        }).then(
          () => 0,
          (error: { code?: number }) => error.code ?? -1,
        );
        expect(run, `${block.where}: ${line}`).toBe(Number(block.match[1]));
      }
    }
  }, 120_000);
});

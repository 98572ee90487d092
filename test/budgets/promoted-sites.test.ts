import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { promotedSites } from '../../bench/promoted-sites.js';

const SAMPLER = new URL('../../bench/load/promoted-sampler.mjs', import.meta.url).pathname;

/**
 * A real process under the bench's sampler (`--import`, as the load runs preload it), in a folder
 * named like spanscore's sources (`src/`) so its frames count as own code: `keepMany` allocates
 * objects that are held across young collections, then let go (a full collection takes them),
 * `churn` allocates more bytes that die young, and a worker thread does the same, profiled alone.
 */
function sampledRun(): { dir: string; files: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'promoted-sites-'));
  const srcDir = join(mkdtempSync(join(tmpdir(), 'promoted-app-')), 'src');
  mkdirSync(srcDir);
  const script = join(srcDir, 'app.mjs');
  writeFileSync(
    script,
    `
    import { Worker, isMainThread } from 'node:worker_threads';
    export function keepMany(n) { const kept = []; for (let i = 0; i < n; i++) kept.push({ i, tag: 'k' + i, list: [i, i] }); return kept; }
    const ring = new Array(64);
    export function churn(n) { for (let i = 0; i < n; i++) ring[i % 64] = { i, tag: 'c' + i, list: [i, i] }; return ring.length; }
    const held = [];
    const tick = () => { held.push(keepMany(2000)); churn(20000); if (held.length > 20) held.shift(); };
    const timer = setInterval(tick, 5);
    if (isMainThread) new Worker(new URL(import.meta.url));
    setTimeout(() => { clearInterval(timer); globalThis.gc?.(); setTimeout(() => {}, 600); }, 1500);
    `.replace(/^\s+/gm, ''),
  );
  const run = spawnSync(
    process.execPath,
    ['--import', SAMPLER, '--expose-gc', '--max-semi-space-size=1', script],
    {
      encoding: 'utf8',
      env: { ...process.env, SPANSCORE_PROMOTED_PROFILE: `${dir},100,1300` },
    },
  );
  expect(run.status, run.stderr).toBe(0);
  return { dir, files: readdirSync(dir).filter(f => f.endsWith('.heapprofile')) };
}

describe('promoted-sites (where a load run’s promoted bytes were allocated)', () => {
  it('writes a profile per isolate, and names the code that allocated what lived through young collections', () => {
    const { dir, files } = sampledRun();
    // The main thread and the worker thread, each its own file.
    expect(files.sort()).toEqual([
      expect.stringMatching(/^promoted-\d+-0\.heapprofile$/),
      expect.stringMatching(/^promoted-\d+-1\.heapprofile$/),
    ]);
    for (const file of files) {
      const { totalBytes, sites } = promotedSites(readFileSync(join(dir, file), 'utf8'), 5);
      // Up to 260 ticks of 2,000 held objects of three parts each: tens of MB promoted (2 MB on a host slow enough to run a tenth of them).
      expect(totalBytes).toBeGreaterThan(2 * 1024 * 1024);
      expect(sites[0]!.site).toMatch(/^keepMany src\/app\.mjs:\d+$/);
      expect(sites[0]!.share).toBeGreaterThan(0.6);
      // churn allocated ten times what keepMany did, nearly all of it dead by the next young
      // collection (the 64 it still holds then live on).
      const churned = sites.find(s => s.site.startsWith('churn '));
      expect(churned?.share ?? 0).toBeLessThan(0.3);
    }
  });

  it('gives a sample to the innermost own frame on its stack, else to its own frame', () => {
    const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
    const profile = {
      head: {
        callFrame: frame('(root)', ''),
        selfSize: 0,
        children: [
          {
            callFrame: frame('outer', 'file:///app/dist/a.js'),
            selfSize: 100,
            children: [
              {
                callFrame: frame('parse', 'file:///app/node_modules/lib/p.js'),
                selfSize: 300,
                children: [],
              },
            ],
          },
          { callFrame: frame('', ''), selfSize: 600, children: [] },
        ],
      },
    };
    const { totalBytes, sites } = promotedSites(JSON.stringify(profile));
    expect(totalBytes).toBe(1000);
    expect(sites).toEqual([
      { site: '(anonymous) (native):10', bytes: 600, share: 0.6 },
      { site: 'outer dist/a.js:10', bytes: 400, share: 0.4 },
    ]);
  });
});

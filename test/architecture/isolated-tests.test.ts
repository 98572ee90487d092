import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { ISOLATED_TEST_FILES } from '../setup/isolated-test-files.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/**
 * What a test file does to process-wide state that the next file in its worker would see (they
 * share a module graph, `isolate: false`), each with what it looks for in the file's text.
 */
const PROCESS_WIDE: Array<[what: string, pattern: RegExp]> = [
  [
    'sets a global OpenTelemetry provider, context manager or propagator',
    /\bsetGlobal[A-Z]\w*\(|\.register\(\s*\)|\b(context|trace|propagation|logs)\.disable\(/,
  ],
  [
    'sets or deletes an environment variable',
    /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/,
  ],
  ['stubs environment, globals or modules', /\bvi\.(stubEnv|stubGlobal|mock|doMock)\(/],
  [
    'extends expect (the spanscore matchers)',
    /\bexpect\.extend\(|['"]spanscore\/vitest['"]|\/src\/vitest\//,
  ],
  ['captures through the global tracer provider', /\bcaptureTrace\(|\bwithTestCase\(|@trace\b/],
  [
    // Under fake timers, a timer an earlier file's leftover work sets (a socket's, a retry's) is
    // counted too: 4 of them once failed a count of 0 (src/queue/waiting-requests.test.ts).
    'counts the fake clock’s timers, every file’s',
    /\bvi\.getTimerCount\(/,
  ],
];

async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
    out.push(relative(ROOT, join(entry.parentPath, entry.name)));
  }
  return out;
}

describe('test files that touch process-wide state run isolated', () => {
  it('lists every such file in ISOLATED_TEST_FILES (vitest.config.ts)', async () => {
    const isolated = picomatch(ISOLATED_TEST_FILES);
    // The fault suite runs under its own config; this file holds the patterns as samples.
    const self = relative(ROOT, new URL(import.meta.url).pathname);
    const files = [...(await testFiles('src')), ...(await testFiles('test'))].filter(
      f => !f.startsWith('test/faults/') && f !== self,
    );
    const unlisted: string[] = [];
    const touching = new Set<string>();
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const [what, pattern] of PROCESS_WIDE) {
        if (!pattern.test(text)) continue;
        touching.add(file);
        if (!isolated(file)) unlisted.push(`${file}: ${what}`);
      }
    }
    expect(unlisted).toEqual([]);
    // The walk finds the listed files (its globs match several each), and the patterns find what
    // they are for: each file the list names whole touches process-wide state by them.
    expect(files.filter(f => isolated(f)).length).toBeGreaterThan(8);
    const named = ISOLATED_TEST_FILES.filter(f => !picomatch.scan(f).isGlob);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter(f => !touching.has(f))).toEqual([]);
  });

  it('finds each kind of process-wide state in a file that has it', () => {
    const samples = [
      'trace.setGlobalTracerProvider(provider);',
      'process.env.REDIS_URL = url;',
      "vi.stubEnv('X', '1');",
      "import 'spanscore/vitest';",
      'const run = await captureTrace(() => agent());',
      'expect(vi.getTimerCount()).toBe(0);',
    ];
    samples.forEach((text, i) => expect(PROCESS_WIDE[i]![1].test(text), text).toBe(true));
    // Reading or comparing is not setting.
    expect(PROCESS_WIDE[1]![1].test("if (process.env.CI === 'true') x();")).toBe(false);
    expect(PROCESS_WIDE[1]![1].test('const url = process.env.REDIS_URL;')).toBe(false);
  });
});

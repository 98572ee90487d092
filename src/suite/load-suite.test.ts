import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { isSpanscoreError } from '../errors/spanscore-error.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { defineScorer } from '../score/define-scorer.js';
import { loadCustomScorers } from './load-custom-scorers.js';
import { loadSuite, parseSuite } from './load-suite.js';

async function failure(
  text: string,
  file = 'suite.yaml',
): Promise<{ code: string; message: string }> {
  try {
    await parseSuite(text, file, tmpdir());
  } catch (error) {
    if (isSpanscoreError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected the suite to be refused');
}

const ok = `
scorers: [tool_correctness]
testCases:
  - id: a
    expectedTools: [x]
`;

/** Nine levels of ten aliases each: 10⁹ names once expanded, in 600 bytes. */
const laughs = [
  'l0: &l0 [x, x, x, x, x, x, x, x, x, x]',
  ...Array.from(
    { length: 8 },
    (_, i) => `l${i + 1}: &l${i + 1} [${Array(10).fill(`*l${i}`).join(', ')}]`,
  ),
  'scorers: [tool_correctness]',
  'testCases:\n  - id: a\n    expectedTools: *l8',
].join('\n');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('loadSuite', () => {
  it("builds each scorer's strict options schema at most once, not once per case and scorer", async () => {
    // Each strict schema is compiled by zod on its first parse: made per case, a suite of 26,000
    // cases of two scorers spent about 20 s of its load making them (and held 900 MB).
    const strict = vi.spyOn(z.ZodObject.prototype, 'strict');
    const cases = Array.from(
      { length: 2_000 },
      (_, i) => `  - { id: c${i}, expectedTools: [x], scorers: [tool_correctness, tool_loops] }`,
    );
    const suite = await parseSuite(
      `scorers: [tool_correctness]\ntestCases:\n${cases.join('\n')}\n`,
      's.yaml',
      tmpdir(),
    );
    expect(suite.cases).toHaveLength(2_000);
    expect(strict.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("loads YAML and JSON, merging suite scorer defaults into a case's own list", async () => {
    const yaml = await parseSuite(
      `
scorers:
  - { name: tool_call_accuracy, orderMode: mastra }
  - tool_correctness
testCases:
  - { id: a, expectedTool: x }
  - id: b
    expectedTool: y
    scorers: [{ name: tool_call_accuracy, strictMode: true }]
`,
      's.yaml',
      tmpdir(),
    );
    expect(yaml.cases.map(c => c.scorers.map(s => s.scorer.name))).toEqual([
      ['tool_call_accuracy', 'tool_correctness'],
      ['tool_call_accuracy'],
    ]);
    expect(yaml.byId.get('b')!.scorers[0]!.options).toMatchObject({
      orderMode: 'mastra',
      strictMode: true,
    });
    const json = await parseSuite(
      JSON.stringify({
        scorers: ['tool_correctness'],
        testCases: [{ id: 7, expectedTools: ['x'] }],
      }),
      's.json',
      tmpdir(),
    );
    expect(json.byId.has('7')).toBe(true);
  });

  it.each([
    [
      'a YAML syntax error',
      'testCases: [\n  - id: a\n',
      'SS_SUITE_INVALID',
      /^suite\.yaml: line \d+:\d+: /,
    ],
    [
      'no test cases',
      'scorers: [tool_correctness]\ntestCases: []\n',
      'SS_SUITE_INVALID',
      /^suite\.yaml: line 2: testCases: Too small/,
    ],
    [
      'a mistyped expectation',
      'scorers: [tool_correctness]\ntestCases:\n  - id: a\n    expectedTools: weather\n',
      'SS_SUITE_INVALID',
      /^suite\.yaml: line 4: testCases\[0\]\.expectedTools: .*expected array/i,
    ],
    [
      'an unknown field',
      'scorers: [tool_correctness]\ntestCases:\n  - id: a\n    expectedTool: x\n    expectedtools: [x]\n',
      'SS_SUITE_INVALID',
      /testCases\[0\]: unknown field\(s\) "expectedtools"/,
    ],
    [
      'a misspelled required key, named with the key it was meant to be',
      'name: x\ntestcases:\n  - id: a\n',
      'SS_SUITE_INVALID',
      /^suite\.yaml: line 1: \(top level\): unknown field\(s\) "testcases" \(did you mean "testCases"\?\)$/,
    ],
    [
      'an unknown scorer',
      'scorers: [tool_corectness]\ntestCases:\n  - id: a\n',
      'SS_SCORER_UNKNOWN',
      /^suite\.yaml: line 1: scorers\[0\]: unknown scorer "tool_corectness"; built in: tool_call_accuracy/,
    ],
    [
      'a bad scorer option',
      'scorers: [{ name: tool_trajectory, match: sideways }]\ntestCases:\n  - id: a\n',
      'SS_SUITE_INVALID',
      /scorers\[0\]: scorer tool_trajectory: option "match"/,
    ],
    [
      'a duplicate test case id',
      'scorers: [tool_correctness]\ntestCases:\n  - id: a\n  - id: a\n',
      'SS_SUITE_INVALID',
      /line 4: testCases\[1\]\.id: duplicate test case id "a"/,
    ],
    [
      'an invalid regex ground truth',
      'scorers: [regex_match]\ntestCases:\n  - id: a\n    groundTruth: "(unclosed"\n',
      'SS_SUITE_INVALID',
      /testCases\[0\]\.groundTruth: invalid regular expression/,
    ],
    [
      'aliases that would expand to a billion names',
      laughs,
      'SS_SUITE_INVALID',
      /^suite\.yaml: Excessive alias count/,
    ],
    [
      'a case with no scorers at all',
      'testCases:\n  - id: a\n',
      'SS_SUITE_INVALID',
      /testCases\[0\]: no scorers/,
    ],
  ])('refuses %s, naming the file, line and path', async (_name, text, code, message) => {
    const error = await failure(text);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('names a missing suite file', async () => {
    await expect(loadSuite('/nonexistent/suite.yaml')).rejects.toMatchObject({
      code: 'SS_INPUT_NOT_FOUND',
      message: expect.stringMatching(/^\/nonexistent\/suite\.yaml: cannot read suite/),
    });
  });

  it('loads a scorer exported twice (by default and by name) once, of the scorer shape too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    writeFileSync(
      join(dir, 'twice.mjs'),
      'export const shaped = { name: "shaped", parseOptions: o => o, score: () => ({ status: "skipped", reason: "-" }) };\nexport default [shaped];\n',
    );
    const scorers = await loadCustomScorers(['./twice.mjs'], dir, 'suite.yaml');
    expect(scorers.map(s => s.name)).toEqual(['shaped']);
  });

  it('loads a TypeScript custom scorer module relative to the suite, importing spanscore', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    writeFileSync(
      join(dir, 'my-scorer.ts'),
      `import { defineScorer } from 'spanscore';\nconst n: number = 1;\nexport const mine = defineScorer({ name: 'always', score: () => n });\n`,
    );
    writeFileSync(
      join(dir, 'suite.yaml'),
      `customScorers: [./my-scorer.ts]\nscorers: [always]\ntestCases: [{ id: a }]\n`,
    );
    const suite = await loadSuite(join(dir, 'suite.yaml'));
    expect(suite.cases[0]!.scorers[0]!.scorer).toMatchObject({ name: 'always', kind: 'custom' });
  });

  it('hands a scorer module the spanscore that loads it, not a copy compiled again', async () => {
    // A second copy (what the alias named before: jiti compiled and ran all of src/ each load,
    // 4–20 s) would hand over functions of its own.
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    writeFileSync(
      join(dir, 'seen.ts'),
      `import * as spanscore from 'spanscore';
(globalThis as Record<string, unknown>).__spanscoreSeenByScorer = spanscore;
export default spanscore.defineScorer({ name: 'seen', score: () => 1 });
`,
    );
    const global = globalThis as { __spanscoreSeenByScorer?: Record<string, unknown> };
    try {
      for (let load = 0; load < 2; load++) {
        delete global.__spanscoreSeenByScorer;
        expect(await loadCustomScorers(['./seen.ts'], dir, 'suite.yaml')).toHaveLength(1);
        const seen = global.__spanscoreSeenByScorer!;
        expect(seen.defineScorer).toBe(defineScorer);
        expect(seen.loadSuite).toBe(loadSuite);
        expect(seen.groupSpansByTrace).toBe(groupSpansByTrace);
      }
    } finally {
      delete global.__spanscoreSeenByScorer;
    }
  });

  it('hands a scorer module the running spanscore from the built package too: named, namespace and default imports, a class to extend', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    writeFileSync(
      join(dir, 'seen.ts'),
      [
        "import spanscoreDefault, * as spanscore from 'spanscore';",
        "import { defineScorer, SpanscoreError } from 'spanscore';",
        'class Mine extends SpanscoreError {}',
        'const seen = { spanscore, spanscoreDefault, defineScorer, mine: new Mine("SS_SUITE_INVALID", "x") };',
        '(globalThis as Record<string, unknown>).__seen = seen;',
        "export default defineScorer({ name: 'seen', score: () => 1 });",
      ].join('\n'),
    );
    const dist = join(fileURLToPath(new URL('../../', import.meta.url)), 'dist');
    const script = `
      const { loadCustomScorers } = await import(${JSON.stringify(join(dist, 'suite/load-custom-scorers.js'))});
      const own = await import(${JSON.stringify(join(dist, 'index.js'))});
      const scorers = await loadCustomScorers(['./seen.ts'], ${JSON.stringify(dir)}, 'suite.yaml');
      const { spanscore, spanscoreDefault, defineScorer, mine } = globalThis.__seen;
      console.log(JSON.stringify({
        scorers: scorers.length,
        named: defineScorer === own.defineScorer,
        namespace: spanscore.defineScorer === own.defineScorer && spanscore.loadSuite === own.loadSuite,
        keys: Object.keys(spanscore).length === Object.keys(own).length,
        defaultImport: spanscoreDefault === undefined || spanscoreDefault.defineScorer === own.defineScorer,
        extended: mine instanceof own.SpanscoreError,
      }));`;
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(JSON.parse(stdout)).toEqual({
      scorers: 1,
      named: true,
      namespace: true,
      keys: true,
      defaultImport: true,
      extended: true,
    });
  });

  it('says what the stand-in for spanscore is when it is loaded with nothing registered', async () => {
    const shim = fileURLToPath(new URL('./running-spanscore.cts', import.meta.url));
    const registry = (globalThis as { [key: symbol]: Map<string, object> | undefined })[
      Symbol.for('spanscore.runningExports')
    ];
    const registered = registry?.get(shim);
    registry?.delete(shim);
    try {
      const { createJiti } = await import('jiti');
      await expect(
        createJiti(import.meta.url, { moduleCache: false }).import(shim),
      ).rejects.toThrow(
        /stands in for 'spanscore' while a suite's custom scorers load, and nothing registered it here/,
      );
    } finally {
      if (registered) registry!.set(shim, registered);
    }
  });

  it.each([
    [
      'a missing module',
      'customScorers: [./nope.ts]',
      /customScorers\[0\]: module .*nope\.ts does not exist/,
    ],
    [
      'a module exporting no scorer',
      'customScorers: [./empty.mjs]',
      /empty\.mjs exports no scorer/,
    ],
    ['a module that throws', 'customScorers: [./broken.mjs]', /cannot load .*broken\.mjs: kaput/],
    [
      'a custom scorer named like a built-in',
      'customScorers: [./clash.mjs]',
      /has the name of a built-in scorer/,
    ],
  ])('refuses %s', async (_name, line, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-suite-'));
    writeFileSync(join(dir, 'empty.mjs'), 'export const x = 1;\n');
    writeFileSync(join(dir, 'broken.mjs'), 'throw new Error("kaput");\n');
    writeFileSync(
      join(dir, 'clash.mjs'),
      'export default { name: "contains", score() { return 1; }, parseOptions(o) { return o; } };\n',
    );
    writeFileSync(join(dir, 'suite.yaml'), `${line}\n${ok}`);
    await expect(loadSuite(join(dir, 'suite.yaml'))).rejects.toMatchObject({
      code: 'SS_CUSTOM_SCORER_INVALID',
      message: expect.stringMatching(message),
    });
  });
});

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/run-cli.js';
import type { ComparisonReport } from '../../src/decide/compare-summaries.js';
import type { RunSummary } from '../../src/decide/run-summary.js';
import { repeated, writeRuns } from '../helpers/run-files.js';

const SUITE = `
name: trials
scorers: [tool_correctness]
testCases:
  - { id: weather, expectedTools: [weather] }
  - { id: search, expectedTools: [search] }
  - { id: book, expectedTools: [book] }
`;
const W = ['weather'];
const S = ['search'];
const B = ['book'];
const X = ['wrong_tool'];

let dir: string;
let suite: string;
/** Scores `runs` (written to a file of their own) with `args`, in the test's folder. */
async function score(name: string, runs: Parameters<typeof writeRuns>[2], ...args: string[]) {
  const sub = mkdtempSync(join(dir, `${name}-`));
  writeRuns(sub, 'traces.json', runs);
  return run(['score', '--suite', suite, ...args, sub]);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spanscore-compare-'));
  suite = join(dir, 'suite.yaml');
  writeFileSync(suite, SUITE);
});

describe('spanscore score with repeated runs', () => {
  it('aggregates each test case × scorer in json, with interval, pass@k, pass^k and stability', async () => {
    const { code, stdout } = await score(
      'json',
      [
        ...repeated('weather', 4, 3, W, X),
        ...repeated('search', 2, 2, S, X),
        ...repeated('book', 3, 0, B, X),
      ],
      '--format',
      'json',
    );
    expect(code).toBe(1); // no trials requirement: every failed run fails the run, as before
    const { results, trials } = JSON.parse(stdout) as {
      results: unknown[];
      trials: Array<Record<string, unknown>>;
    };
    expect(results).toHaveLength(9);
    const by = Object.fromEntries(trials.map(t => [t.testCaseId, t]));
    expect(by.weather).toMatchObject({
      runs: 4,
      passes: 3,
      passRate: 0.75,
      k: 4,
      passAtK: 1,
      passHatK: 0,
      stability: 'flaky',
    });
    expect((by.weather!.interval as number[])[0]).toBeCloseTo(0.3006418, 6);
    expect((by.weather!.failingTraceIds as string[]).length).toBe(1);
    expect(by.search).toMatchObject({ runs: 2, passes: 2, stability: 'stable_pass' });
    expect(by.book).toMatchObject({ runs: 3, passes: 0, stability: 'stable_fail', passAtK: 0 });
  });

  it('lets a trials requirement decide the exit code, reporting too few runs', async () => {
    const withTrials = join(dir, 'suite-trials.yaml');
    writeFileSync(
      withTrials,
      `${SUITE.trim()}\ntrials: { min: 3, passRate: 0.6, k: 2 }\n`.replace(
        '  - { id: book, expectedTools: [book] }',
        '  - { id: book, expectedTools: [book], trials: { min: 1, passRate: 1 } }',
      ),
    );
    const sub = mkdtempSync(join(dir, 'trials-'));
    // weather 3/4 ≥ 0.6: passes although one run failed; book 1/1 passes.
    writeRuns(sub, 'a.json', [
      ...repeated('weather', 4, 3, W, X),
      ...repeated('book', 1, 1, B, X),
      ...repeated('search', 3, 3, S, X),
    ]);
    const ok = await run(['score', '--suite', withTrials, '--format', 'table', sub]);
    expect(ok.code).toBe(0);
    const table = stripVTControlCharacters(ok.stdout);
    expect(table).toContain('Repeated runs');
    expect(table).toMatch(
      /weather +│ tool_correctness +│ 75% \(3\/4\) +│ 0\.30–0\.95 +│ 2 +│ 1\.00 +│ 0\.50 +│ flaky +│ pass \(≥3 runs, ≥60%\)/,
    );

    // search has 2 runs of the 3 required: reported, and the run fails.
    const few = mkdtempSync(join(dir, 'few-'));
    writeRuns(few, 'a.json', [
      ...repeated('weather', 3, 3, W, X),
      ...repeated('book', 1, 1, B, X),
      ...repeated('search', 2, 2, S, X),
    ]);
    const short = await run(['score', '--suite', withTrials, '--format', 'junit', few]);
    expect(short.code).toBe(1);
    const xml = new XMLParser({ ignoreAttributes: false }).parse(short.stdout) as {
      testsuites: { testsuite: { testcase: Array<Record<string, unknown>> } };
    };
    const cases = xml.testsuites.testsuite.testcase;
    expect(cases.map(c => c['@_name'])).toEqual([
      'weather › tool_correctness › trials',
      'book › tool_correctness › trials',
      'search › tool_correctness › trials',
    ]);
    expect(cases[2]!.failure).toMatchObject({ '@_type': 'TooFewRuns' });
    expect(cases[0]!.failure).toBeUndefined();

    // weather below its pass rate fails the run.
    const low = mkdtempSync(join(dir, 'low-'));
    writeRuns(low, 'a.json', [
      ...repeated('weather', 5, 2, W, X),
      ...repeated('book', 1, 1, B, X),
      ...repeated('search', 3, 3, S, X),
    ]);
    expect((await run(['score', '--suite', withTrials, low])).code).toBe(1);
  });
});

describe('run summaries and spanscore compare', () => {
  let baseline: string;
  beforeAll(async () => {
    baseline = join(dir, 'baseline.json');
    const { code } = await score(
      'baseline',
      [
        ...repeated('weather', 10, 10, W, X),
        ...repeated('search', 1, 1, S, X),
        ...repeated('book', 10, 1, B, X),
      ],
      '--summary',
      baseline,
      '--label',
      'git.sha=abc123',
      '--label',
      'model=m1',
    );
    expect(code).toBe(1);
  });

  it('writes a versioned, committable summary: a few hundred bytes per test case × scorer', () => {
    const text = readFileSync(baseline, 'utf8');
    const summary = JSON.parse(text) as RunSummary;
    expect(summary).toMatchObject({
      spanscoreRunSummary: 1,
      suite: 'trials',
      labels: { 'git.sha': 'abc123', model: 'm1' },
    });
    expect(summary.results.map(r => [r.testCaseId, r.runs, r.passes])).toEqual([
      ['weather', 10, 10],
      ['search', 1, 1],
      ['book', 10, 1],
    ]);
    expect(summary.results[0]!.scorerVersion).toMatch(/^[0-9a-f]{12}$/);
    expect(text.length / summary.results.length).toBeLessThan(500);
    // One row per line: a diff of two baselines reads row by row.
    expect(text.split('\n').filter(l => l.includes('"testCaseId"'))).toHaveLength(3);
  });

  it('finds the regression, the improvement and the flip, and exits as --fail-on says', async () => {
    const current = join(dir, 'current.json');
    await score(
      'current',
      [
        ...repeated('weather', 10, 2, W, X),
        ...repeated('search', 1, 0, S, X),
        ...repeated('book', 10, 9, B, X),
      ],
      '--summary',
      current,
    );
    const json = await run(['compare', baseline, current, '--format', 'json']);
    expect(json.code).toBe(0); // no --fail-on: report only
    const report = JSON.parse(json.stdout) as ComparisonReport;
    const by = Object.fromEntries(report.comparisons.map(c => [c.testCaseId, c]));
    expect(by.weather).toMatchObject({
      verdict: 'regressed',
      direction: 'down',
      significant: true,
      baseline: { runs: 10, passes: 10, passRate: 1 },
      current: { runs: 10, passes: 2, passRate: 0.2 },
    });
    expect(by.book).toMatchObject({ verdict: 'improved', direction: 'up' });
    expect(by.search).toMatchObject({
      verdict: 'unchanged',
      direction: 'down',
      significant: false,
      pValue: 0.5,
      flip: true,
    });
    expect(report.summary).toMatchObject({ regressed: 1, improved: 1, unchanged: 1, flips: 1 });

    expect((await run(['compare', baseline, current, '--fail-on', 'regression'])).code).toBe(1);
    const md = await run(['compare', baseline, current, '--format', 'markdown']);
    expect(md.stdout).toContain(
      '### spanscore: ℹ️ 1 regressed; no --fail-on, so this does not fail the run',
    );
    // Regressions first, then improvements, then the flip: never hidden.
    const order = ['#### Regressed', '#### Improved', '#### Flips'].map(h => md.stdout.indexOf(h));
    expect(order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(md.stdout).toContain('git.sha=abc123');

    // Only the flip: not a regression, but a fall.
    const flipOnly = join(dir, 'flip.json');
    await score(
      'flip',
      [
        ...repeated('weather', 10, 10, W, X),
        ...repeated('search', 1, 0, S, X),
        ...repeated('book', 10, 1, B, X),
      ],
      '--summary',
      flipOnly,
    );
    expect((await run(['compare', baseline, flipOnly, '--fail-on', 'regression'])).code).toBe(0);
    expect((await run(['compare', baseline, flipOnly, '--fail-on', 'any-regression'])).code).toBe(
      1,
    );
    const table = await run(['compare', baseline, flipOnly]);
    expect(table.stdout).toMatch(
      /^search +tool_correctness +100% \(1\/1\) +0% \(0\/1\) +-100 +0\.50 +unchanged \(flip\)$/m,
    );
  });

  it('states, in every format, the verdict that decides the exit code under each --fail-on', async () => {
    const summaryOf = async (name: string, runs: Parameters<typeof writeRuns>[2]) => {
      const file = join(dir, `${name}.json`);
      await score(name, runs, '--summary', file);
      return file;
    };
    const currents = {
      // weather regressed (10/10 → 2/10), search flipped (1/1 → 0/1), book improved.
      regressed: await summaryOf('v-regressed', [
        ...repeated('weather', 10, 2, W, X),
        ...repeated('search', 1, 0, S, X),
        ...repeated('book', 10, 9, B, X),
      ]),
      // Only search fell, by one run: not significant.
      flip: await summaryOf('v-flip', [
        ...repeated('weather', 10, 10, W, X),
        ...repeated('search', 1, 0, S, X),
        ...repeated('book', 10, 1, B, X),
      ]),
      // The baseline's own pass counts.
      same: await summaryOf('v-same', [
        ...repeated('weather', 10, 10, W, X),
        ...repeated('search', 1, 1, S, X),
        ...repeated('book', 10, 1, B, X),
      ]),
    };
    const cases: Array<{
      current: keyof typeof currents;
      failOn: 'regression' | 'any-regression' | null;
      code: number;
      verdict: string;
      failing: string[];
    }> = [
      {
        current: 'regressed',
        failOn: null,
        code: 0,
        verdict: '1 regressed; no --fail-on, so this does not fail the run',
        failing: [],
      },
      {
        current: 'regressed',
        failOn: 'regression',
        code: 1,
        verdict: 'failed --fail-on regression: 1 regressed',
        failing: ['weather × tool_correctness'],
      },
      {
        current: 'regressed',
        failOn: 'any-regression',
        code: 1,
        verdict: 'failed --fail-on any-regression: 2 pass rates fell (1 regressed, 1 flip)',
        failing: ['weather × tool_correctness', 'search × tool_correctness'],
      },
      {
        current: 'flip',
        failOn: null,
        code: 0,
        verdict:
          'no significant regression (1 flip, not significant); no --fail-on, so this does not fail the run',
        failing: [],
      },
      {
        current: 'flip',
        failOn: 'regression',
        code: 0,
        verdict: 'passed --fail-on regression: no significant regression (1 flip, not significant)',
        failing: [],
      },
      {
        current: 'flip',
        failOn: 'any-regression',
        code: 1,
        verdict: 'failed --fail-on any-regression: 1 pass rate fell (0 regressed, 1 flip)',
        failing: ['search × tool_correctness'],
      },
      {
        current: 'same',
        failOn: null,
        code: 0,
        verdict: 'no regression; no --fail-on, so this does not fail the run',
        failing: [],
      },
      {
        current: 'same',
        failOn: 'regression',
        code: 0,
        verdict: 'passed --fail-on regression: no regression',
        failing: [],
      },
      {
        current: 'same',
        failOn: 'any-regression',
        code: 0,
        verdict: 'passed --fail-on any-regression: no pass rate fell',
        failing: [],
      },
    ];
    for (const c of cases) {
      const args = [
        'compare',
        baseline,
        currents[c.current],
        ...(c.failOn ? ['--fail-on', c.failOn] : []),
      ];
      const mark = c.failOn === null ? 'ℹ️' : c.code ? '❌' : '✅';
      const outcome = c.failOn === null ? 'informational' : c.code ? 'failed' : 'passed';
      const at = `${c.current} --fail-on ${c.failOn}`;

      const table = await run([...args, '--format', 'table']);
      expect(table.code, at).toBe(c.code);
      const tail = table.stdout.trimEnd().split('\n');
      const verdictAt = tail.indexOf(`${c.verdict}${c.failing.length ? ':' : ''}`);
      expect(verdictAt, `${at}\n${table.stdout}`).toBeGreaterThan(0);
      expect(tail.slice(verdictAt + 1).map(l => l.trim())).toEqual(c.failing);

      const md = await run([...args, '--format', 'markdown']);
      expect(md.code, at).toBe(c.code);
      const mdLines = md.stdout.split('\n');
      expect(mdLines[0], at).toBe(`### spanscore: ${mark} ${c.verdict}`);
      expect(
        mdLines.filter(l => l.startsWith('- ')),
        at,
      ).toEqual(c.failing.map(f => `- ${f.replaceAll('_', '\\_')}`)); // Markdown-escaped

      const json = await run([...args, '--format', 'json']);
      expect(json.code, at).toBe(c.code);
      const report = JSON.parse(json.stdout) as ComparisonReport;
      expect(report.decision.failOn, at).toBe(c.failOn);
      expect(report.decision.outcome, at).toBe(outcome);
      if (c.failOn)
        expect(
          report.decision.failing.map(f => `${f.testCaseId} × ${f.scorer}`),
          at,
        ).toEqual(c.failing);

      const html = await run([...args, '--format', 'html']);
      expect(html.code, at).toBe(c.code);
      const verdict =
        /<p id="comparison-verdict"[^>]*data-outcome="(\w+)"><strong>(.*?)<\/strong><\/p>/.exec(
          html.stdout,
        );
      expect(verdict?.slice(1), at).toEqual([outcome, `${mark} ${c.verdict}`]);
      const items = [...html.stdout.matchAll(/<ul id="comparison-failing">(.*?)<\/ul>/g)].flatMap(
        m => [...m[1]!.matchAll(/<li>(.*?)<\/li>/g)].map(li => li[1]),
      );
      expect(items, at).toEqual(c.failing);
    }
  });

  it('never calls a changed scorer configuration a regression, and names new and removed cases', async () => {
    const changed = join(dir, 'suite-changed.yaml');
    writeFileSync(
      changed,
      SUITE.replace(
        'scorers: [tool_correctness]',
        'scorers: [{ name: tool_correctness, normalize: false }]',
      ).replace(
        '  - { id: book, expectedTools: [book] }',
        '  - { id: hotel, expectedTools: [hotel] }',
      ),
    );
    const sub = mkdtempSync(join(dir, 'changed-'));
    writeRuns(sub, 'a.json', [
      ...repeated('weather', 10, 0, W, X),
      ...repeated('search', 1, 1, S, X),
      ...repeated('hotel', 1, 1, ['hotel'], X),
    ]);
    const current = join(dir, 'changed.json');
    const scored = await run(['score', '--suite', changed, '--summary', current, sub]);
    expect(scored.code).toBe(1);
    const report = JSON.parse(
      (await run(['compare', baseline, current, '--format', 'json'])).stdout,
    ) as ComparisonReport;
    const by = Object.fromEntries(report.comparisons.map(c => [c.testCaseId, c.verdict]));
    expect(by).toEqual({
      weather: 'not_comparable',
      search: 'not_comparable',
      hotel: 'new',
      book: 'removed',
    });
    expect((await run(['compare', baseline, current, '--fail-on', 'any-regression'])).code).toBe(0);
  });

  it('exits 2 naming a file that cannot be read, is not a summary, or is of another version', async () => {
    const missing = await run(['compare', baseline, join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.json: cannot read run summary/);

    const notOne = join(dir, 'not-one.json');
    writeFileSync(notOne, JSON.stringify([{ traceId: 'x' }]));
    const no = await run(['compare', notOne, baseline]);
    expect(no.code).toBe(2);
    expect(no.stderr).toContain('not-one.json: not a spanscore run summary');

    const future = join(dir, 'future.json');
    writeFileSync(
      future,
      JSON.stringify({ ...JSON.parse(readFileSync(baseline, 'utf8')), spanscoreRunSummary: 2 }),
    );
    const v2 = await run(['compare', baseline, future]);
    expect(v2.code).toBe(2);
    expect(v2.stderr).toContain(
      'future.json: run summary version 2; this spanscore reads version 1',
    );

    const broken = join(dir, 'broken.json');
    const parsed = JSON.parse(readFileSync(baseline, 'utf8')) as RunSummary;
    parsed.results[0]!.passes = 99;
    writeFileSync(broken, JSON.stringify(parsed));
    const bad = await run(['compare', broken, baseline]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('broken.json: results.0: passes above runs');

    const notJson = join(dir, 'text.json');
    writeFileSync(notJson, 'hello');
    expect((await run(['compare', notJson, baseline])).stderr).toContain('text.json: not JSON');
  });

  it('score --baseline: the comparison decides the exit code, and the HTML report shows both sides', async () => {
    const html = join(dir, 'report.html');
    // The same failures as the baseline (book 1/10): no regression, exit 0 though results fail.
    const same = await score(
      'same',
      [
        ...repeated('weather', 10, 10, W, X),
        ...repeated('search', 1, 1, S, X),
        ...repeated('book', 10, 1, B, X),
      ],
      '--baseline',
      baseline,
      '--output',
      html,
    );
    expect(same.code).toBe(0);
    expect(same.stderr).toContain('3 compared: 0 regressed');
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('<h2 id="comparison-title">Against the baseline</h2>');
    expect(page).toMatch(
      /<th scope="row">book<\/th><td>tool_correctness<\/td><td class="num">10% \(1\/10\)<\/td><td class="num">10% \(1\/10\)<\/td>/,
    );
    expect(page).toContain('<h2 id="trials-title">Repeated runs</h2>');

    const worse = await score(
      'worse',
      [
        ...repeated('weather', 10, 1, W, X),
        ...repeated('search', 1, 1, S, X),
        ...repeated('book', 10, 1, B, X),
      ],
      '--baseline',
      baseline,
      '--format',
      'markdown',
    );
    expect(worse.code).toBe(1);
    // score's --fail-on defaults to regression: the heading says the run failed on it.
    expect(worse.stdout).toContain('### spanscore: ❌ failed --fail-on regression: 1 regressed');
    expect(worse.stdout).toContain('### spanscore results: trials');

    const unreadable = await score(
      'x',
      repeated('weather', 1, 1, W, X),
      '--baseline',
      join(dir, 'none.json'),
    );
    expect(unreadable.code).toBe(2);
  });
});

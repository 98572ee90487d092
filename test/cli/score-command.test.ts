import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify, stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import type { ResultRow } from '../../src/report/result-row.js';
import { CLI_ENTRY } from '../helpers/cli-entry.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/otlp');
const WEATHER = join(ROOT, 'config/suites/weather-agent.yaml');

const run = (args: string[], tty = false) => runCli(args, { tty });

function tempSuite(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-cli-'));
  writeFileSync(join(dir, 'suite.yaml'), text);
  return join(dir, 'suite.yaml');
}

const FAILING = `
name: failing
scorers: [tool_correctness]
testCases:
  - { id: weather-paris, expectedTools: [search] }
  - { id: search-then-weather, expectedTools: [searchWeb, weather] }
  - { id: never-ran, expectedTools: [x] }
`;

// Each test runs the CLI as a process (one or two), loading the suite's TypeScript scorer: 1.7 s
// on an idle host, past the 30 s default on a loaded CI host (two runs took 16 s beside one other
// file; on Node 24 in CI one run passed 30 s).
describe('spanscore score', { timeout: 90_000 }, () => {
  it('scores the example suite: exit 0, jsonl when stdout is not a terminal, every field present', async () => {
    const { code, stdout, stderr } = await run(['score', '--suite', WEATHER, FIXTURES]);
    expect(code).toBe(0);
    const rows = stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as ResultRow);
    expect(rows).toHaveLength(13);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(
        [
          'details',
          'kind',
          'label',
          'reason',
          'score',
          'scorer',
          'status',
          'testCaseId',
          'toolSequence',
          'toolsUsed',
          'traceId',
        ].sort(),
      );
      expect(row.traceId).toMatch(/^[0-9a-f]{32}$/);
    }
    const paris = rows.find(
      r => r.testCaseId === 'weather-paris' && r.scorer === 'tool_call_accuracy',
    )!;
    expect(paris).toMatchObject({
      status: 'scored',
      score: 1,
      label: 'pass',
      toolsUsed: ['weather'],
    });
    expect(paris.toolSequence[0]).toMatchObject({
      name: 'weather',
      callId: 'call_w1',
      arguments: { city: 'Paris' },
      startTimeUnixNano: expect.stringMatching(/^\d+$/),
    });
    expect(stderr).toMatch(
      /^13 results: 13 passed, 0 failed, 0 skipped, 0 errors, 0 missing; \d+ trace\(s\) matched no test case\n$/,
    );
  });

  it('exits 1 when a result fails or a test case has no trace, and reports the missing case', async () => {
    const { code, stdout } = await run([
      'score',
      '--suite',
      tempSuite(FAILING),
      '--format',
      'json',
      FIXTURES,
    ]);
    expect(code).toBe(1);
    const rows = (JSON.parse(stdout) as { results: ResultRow[] }).results;
    expect(rows.map(r => [r.testCaseId, r.status, r.score, r.label])).toEqual([
      ['weather-paris', 'scored', 0, 'fail'],
      ['search-then-weather', 'scored', 1, 'pass'],
      ['never-ran', 'missing', null, null],
    ]);
    expect(rows[0]!.details).toMatchObject({
      missingTools: ['search'],
      unexpectedTools: ['weather'],
    });
    expect(rows[2]).toMatchObject({
      traceId: null,
      reason: 'no trace was found for this test case',
      toolsUsed: [],
    });
  });

  it('writes JUnit XML with a failure per failing or missing result', async () => {
    const { code, stdout } = await run([
      'score',
      '--suite',
      tempSuite(FAILING),
      '--format',
      'junit',
      FIXTURES,
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>/);
    expect(stdout).toMatch(
      /<testsuite name="failing" tests="3" failures="2" errors="0" skipped="0"/,
    );
    expect(stdout).toContain(
      '<testcase classname="failing" name="weather-paris › tool_correctness">',
    );
    expect(stdout).toContain(
      '<failure message="score 0: missing search; unexpected weather" type="ScoreBelowThreshold"/>',
    );
    expect(stdout).toContain(
      '<failure message="no trace was found for this test case" type="MissingTrace"/>',
    );
  });

  it('prints a table with totals when stdout is a terminal', async () => {
    const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    delete process.env.NO_COLOR;
    delete process.env.FORCE_COLOR;
    const { code, stdout: colored } = await run(
      ['score', '--suite', tempSuite(FAILING), FIXTURES],
      true,
    ).finally(() => {
      for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
    });
    expect(code).toBe(1);
    expect(colored).toContain('\u001b[31mfail\u001b[39m'); // red on a terminal
    const stdout = stripVTControlCharacters(colored);
    expect(stdout).toMatch(/Test case\s+│ Scorer\s+│ Score\s+│ Result\s+│ Reason/);
    expect(stdout).toMatch(/weather-paris\s+│ tool_correctness\s+│ 0\s+│ fail/);
    expect(stdout).toMatch(/3 results: 1 passed, 1 failed, 0 skipped, 0 errors, 1 missing/);
  });

  it('--output infers the format from the extension and writes the file', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'spanscore-out-')), 'results.xml');
    const { code, stdout, stderr } = await run([
      'score',
      '--suite',
      WEATHER,
      '--output',
      out,
      FIXTURES,
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(
      /<testsuite name="weather-agent" tests="13" failures="0"/,
    );
    expect(stderr).toMatch(/^13 results: 13 pass/);
  });

  it('exits 2 when some input is rejected, names it, and still scores the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-bad-'));
    copyFileSync(join(FIXTURES, 'captured-vercel-ai-sdk-v5.otlp.json'), join(dir, 'good.json'));
    writeFileSync(
      join(dir, 'bad.jsonl'),
      '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","spanId":"0102030405060708"}]}]}]}\nnot json\n',
    );
    const { code, stdout, stderr } = await run(['score', '--suite', WEATHER, dir]);
    expect(code).toBe(2);
    expect(stdout.trim().split('\n')).toHaveLength(13);
    expect(stderr).toContain(
      `spanscore: rejected ${join(dir, 'bad.jsonl')}: line 1: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex characters, got "zz"`,
    );
    expect(stderr).toMatch(new RegExp(`rejected ${join(dir, 'bad.jsonl')}: line 2: invalid JSON`));
  });

  it('warns about a JSON file that is not an OTLP export, naming it, without changing the exit code', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-nototlp-'));
    copyFileSync(join(FIXTURES, 'captured-vercel-ai-sdk-v5.otlp.json'), join(dir, 'good.json'));
    writeFileSync(join(dir, 'results.json'), '{"nope":1}');
    const withWarning = await run(['score', '--suite', WEATHER, dir]);
    const without = await run(['score', '--suite', WEATHER, join(dir, 'good.json')]);
    expect(withWarning.stderr).toContain(
      `spanscore: warning: ${join(dir, 'results.json')}: not an OTLP trace or logs export: no resourceSpans or resourceLogs (it has nope); read as zero spans`,
    );
    expect(without.stderr).not.toContain('warning');
    expect(withWarning.code).toBe(without.code);
    expect(withWarning.stdout).toBe(without.stdout);
  });

  it.each([
    [['score', FIXTURES], /required option '-s, --suite <file>' not specified/],
    [['score', '--suite', WEATHER], /missing required argument 'inputs'/],
    [
      ['score', '--suite', WEATHER, '--format', 'xml', FIXTURES],
      /argument 'xml' is invalid. Allowed choices are table, json, jsonl, junit/,
    ],
    [
      ['score', '--suite', '/no/such/suite.yaml', FIXTURES],
      /spanscore: \/no\/such\/suite.yaml: cannot read suite/,
    ],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('exits 2 on usage and suite errors: %j', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('refuses --fail-on or --alpha without --baseline (exit 2) instead of ignoring them', async () => {
    for (const option of [
      ['--fail-on', 'any-regression'],
      ['--alpha', '0.1'],
    ]) {
      const { code, stdout, stderr } = await run([
        'score',
        '--suite',
        WEATHER,
        ...option,
        FIXTURES,
      ]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(
        `spanscore: ${option[0]} needs --baseline FILE: it applies to the comparison with a baseline run summary, which decides the exit code`,
      );
    }
  });

  it('--help explains inputs, output fields and exit codes, and exits 0', async () => {
    const { code, stdout } = await run(['score', '--help']);
    expect(code).toBe(0);
    for (const text of [
      '--suite <file>',
      '--format <format>',
      'spanscore.test_case.id',
      'toolSequence',
      'Exit codes:',
      '2  usage error',
    ])
      expect(stdout).toContain(text);
  });

  it('runs as a real process with the exit code of the result', async () => {
    const exec = promisify(execFile);
    const args = [CLI_ENTRY, 'score', '--suite', tempSuite(FAILING), '--format', 'jsonl', FIXTURES];
    const failure = await exec(process.execPath, args, { cwd: ROOT }).then(
      () => undefined,
      (e: { code: number; stdout: string }) => e,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe('colour', () => {
  it('goes only to terminals, unless NO_COLOR or FORCE_COLOR says otherwise', async () => {
    const { useColor } = await import('../../src/cli/io.js');
    expect(useColor({ isTTY: true }, {})).toBe(true);
    expect(useColor({ isTTY: false }, { CI: 'true' })).toBe(false);
    expect(useColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
  });
});

import {
  existsSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/run-cli.js';
import type { ResultRow } from '../../src/report/result-row.js';
import { loadSuite } from '../../src/suite/load-suite.js';
import { repeated, writeRuns } from '../helpers/run-files.js';

const ROOT = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
const FIXTURES = join(ROOT, 'test/fixtures/otlp');

const rowsOf = (jsonl: string): ResultRow[] =>
  jsonl
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as ResultRow);

const dir = mkdtempSync(join(tmpdir(), 'spanscore-record-'));
// A capture's logs request (`.logs.pb`) is read with its traces request (`.otlp.pb`).
const captures = readdirSync(FIXTURES).filter(
  f => f.startsWith('captured-') && !f.endsWith('.logs.pb'),
);
const withLogs = (fixture: string): string[] => {
  const logs = join(FIXTURES, fixture.replace(/\.otlp\.pb$/, '.logs.pb'));
  return fixture.endsWith('.otlp.pb') && existsSync(logs)
    ? [join(FIXTURES, fixture), logs]
    : [join(FIXTURES, fixture)];
};

describe('spanscore suite record', () => {
  it.each(captures)(
    '%s: record, then score the same traces: every recorded case passes',
    async fixture => {
      const suite = join(dir, `${fixture}.yaml`);
      const recorded = await run(['suite', 'record', '--out', suite, ...withLogs(fixture)]);
      expect(recorded.code).toBe(0);
      const loaded = await loadSuite(suite);
      const scored = await run(['score', '--suite', suite, ...withLogs(fixture)]);
      const rows = rowsOf(scored.stdout);
      // A trace without a test case id is recorded under a made-up id, which its runs do not carry:
      // the warning says so, and it is the only case not scored.
      const generated = [...recorded.stderr.matchAll(/recorded as "([^"]+)"/g)].map(m => m[1]!);
      const tagged = loaded.cases.filter(c => !generated.includes(c.testCase.id));
      expect(tagged.length).toBeGreaterThan(0);
      for (const c of tagged) {
        const mine = rows.filter(r => r.testCaseId === c.testCase.id);
        expect(mine.map(r => [r.scorer, r.label])).toEqual([
          ['tool_correctness', 'pass'],
          ['tool_trajectory', 'pass'],
          // Traces whose route went through several agents record it too.
          ...(c.testCase.expectedAgents ? [['agent_routing', 'pass']] : []),
        ]);
      }
      expect(rows.filter(r => r.status === 'missing').map(r => r.testCaseId)).toEqual(
        generated.flatMap(id => loaded.byId.get(id)!.scorers.map(() => id)),
      );
    },
  );

  it('records what was called with its arguments, and fails a run that calls something else', async () => {
    const sub = mkdtempSync(join(dir, 'scenario-'));
    writeRuns(sub, 'good.json', repeated('book', 1, 1, ['search_flights', 'book_flight'], []));
    const suite = join(dir, 'book.yaml');
    expect((await run(['suite', 'record', '--out', suite, '--name', 'book', sub])).code).toBe(0);
    const text = readFileSync(suite, 'utf8');
    // No spanscore installed above the suite: the schema of the spanscore that wrote it, by a
    // path relative to the suite that resolves.
    const [, schema] = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text) ?? [];
    expect(resolve(dirname(suite), schema!)).toBe(join(ROOT, 'schema', 'suite.schema.json'));
    expect(text).toContain('name: book');
    expect(text).toMatch(/# recorded from trace [0-9a-f]{32}\n {2}- id: book\n/);
    expect(text).toContain('expectedTools: [ search_flights, book_flight ]');

    const other = mkdtempSync(join(dir, 'other-'));
    writeRuns(other, 'bad.json', repeated('book', 1, 1, ['book_flight'], []));
    const scored = await run(['score', '--suite', suite, other]);
    expect(scored.code).toBe(1);
    expect(rowsOf(scored.stdout).map(r => [r.scorer, r.label])).toEqual([
      ['tool_correctness', 'fail'],
      ['tool_trajectory', 'fail'],
    ]);
  });

  it("points $schema at the installed package's schema, relative to the suite file", async () => {
    const project = mkdtempSync(join(dir, 'project-'));
    mkdirSync(join(project, 'node_modules', 'spanscore', 'schema'), { recursive: true });
    copyFileSync(
      join(ROOT, 'schema', 'suite.schema.json'),
      join(project, 'node_modules', 'spanscore', 'schema', 'suite.schema.json'),
    );
    const sub = mkdtempSync(join(dir, 'schema-'));
    writeRuns(sub, 'good.json', repeated('book', 1, 1, ['book_flight'], []));
    for (const [out, expected] of [
      [
        'evals/suite.yaml',
        '# yaml-language-server: $schema=../node_modules/spanscore/schema/suite.schema.json',
      ],
      ['suite.json', '"$schema": "node_modules/spanscore/schema/suite.schema.json"'],
    ] as const) {
      const file = join(project, out);
      mkdirSync(dirname(file), { recursive: true });
      expect((await run(['suite', 'record', '--out', file, sub])).code).toBe(0);
      expect(readFileSync(file, 'utf8')).toContain(expected);
    }
  });

  it('leaves volatile arguments out, names them, and keeps the round trip with the next run', async () => {
    const sub = mkdtempSync(join(dir, 'volatile-'));
    const spans = (requestId: string, at: string) => ({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: `${requestId.padEnd(31, '0')}1`,
                  spanId: 'a1a1a1a1a1a1a1a1',
                  name: 'execute_tool book_flight',
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: [
                    { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
                    { key: 'gen_ai.tool.name', value: { stringValue: 'book_flight' } },
                    { key: 'spanscore.test_case.id', value: { stringValue: 'volatile' } },
                    {
                      key: 'gen_ai.tool.call.arguments',
                      value: { stringValue: JSON.stringify({ flight: 'TP541', requestId, at }) },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    writeFileSync(join(sub, 'a.json'), JSON.stringify(spans('aaaa', '2026-11-25T10:00:00Z')));
    const suite = join(dir, 'volatile.yaml');
    await run(['suite', 'record', '--out', suite, sub]);
    const text = readFileSync(suite, 'utf8');
    expect(text).toContain('# left out as volatile: book_flight.requestId, book_flight.at');
    expect(text).toContain('- { name: book_flight, args: { flight: TP541 } }');
    const next = mkdtempSync(join(dir, 'volatile-next-'));
    writeFileSync(join(next, 'b.json'), JSON.stringify(spans('bbbb', '2026-11-26T09:30:00Z')));
    expect((await run(['score', '--suite', suite, next])).code).toBe(0);
  });

  it('writes JSON with recordedFrom, which loadSuite loads', async () => {
    const suite = join(dir, 'recorded.json');
    const fixture = join(FIXTURES, 'captured-langfuse-5.11.1.otlp.json');
    expect((await run(['suite', 'record', '--out', suite, '--args', 'exact', fixture])).code).toBe(
      0,
    );
    const json = JSON.parse(readFileSync(suite, 'utf8')) as {
      scorers: unknown[];
      testCases: Array<{ id: string; recordedFrom: { traceId: string }; expectedAgents: string[] }>;
    };
    // Langfuse's agent observation is an agent span, but one agent is no team: no route recorded.
    expect(json.scorers).toEqual([
      'tool_correctness',
      { name: 'tool_trajectory', match: 'exact', args: 'exact' },
    ]);
    expect(json.testCases[0]!.expectedAgents).toBeUndefined();
    expect(json.testCases.map(c => c.id)).toEqual([
      'one-tool',
      'two-tools-in-order',
      'same-tool-twice',
    ]);
    expect(json.testCases[0]!.recordedFrom.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect((await loadSuite(suite)).cases).toHaveLength(3);
    expect((await run(['score', '--suite', suite, fixture])).code).toBe(0);
  });

  it('records the earliest of several traces of a test case, or fails with --strict', async () => {
    const sub = mkdtempSync(join(dir, 'several-'));
    const [first] = writeRuns(
      sub,
      'a.json',
      repeated('twice', 3, 1, ['search_flights'], ['book_flight']),
    );
    const loose = await run(['suite', 'record', sub]);
    expect(loose.code).toBe(0);
    expect(loose.stderr).toContain(
      `test case "twice": 3 traces; the earliest (${first}) is recorded`,
    );
    expect(loose.stdout).toContain('# 2 more trace(s) of this test case not recorded');
    expect(loose.stdout.match(/- id: twice/g)).toHaveLength(1);

    const strict = await run([
      'suite',
      'record',
      '--strict',
      '--out',
      join(dir, 'never.yaml'),
      sub,
    ]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('--strict: test case "twice" has 3 traces');
    expect(() => readFileSync(join(dir, 'never.yaml'))).toThrow();
  });

  it('records a run with no tool call as expectedTools: [], with a warning; names an unreadable file and exits 2', async () => {
    const sub = mkdtempSync(join(dir, 'none-'));
    writeRuns(sub, 'a.json', [{ testCaseId: 'quiet', tools: [] }]);
    writeFileSync(join(sub, 'broken.json'), '{"resourceSpans": [ {');
    const out = await run(['suite', 'record', sub]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/rejected .*broken\.json/);
    expect(out.stderr).toMatch(
      /trace [0-9a-f]{32} \(quiet\) called no tool: recorded with expectedTools: \[\]/,
    );
    expect(out.stdout).toContain('expectedTools: []');
  });

  it('reads the test case id from --test-case-id-attribute and lists it in the suite', async () => {
    const sub = mkdtempSync(join(dir, 'attr-'));
    writeFileSync(
      join(sub, 'a.json'),
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: 'c'.repeat(32),
                    spanId: 'c'.repeat(16),
                    name: 'execute_tool get_weather',
                    startTimeUnixNano: '1',
                    endTimeUnixNano: '2',
                    attributes: [
                      { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
                      { key: 'gen_ai.tool.name', value: { stringValue: 'get_weather' } },
                      { key: 'session.id', value: { stringValue: 'weather-session' } },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const suite = join(dir, 'attr.yaml');
    await run(['suite', 'record', '--test-case-id-attribute', 'session.id', '--out', suite, sub]);
    expect(readFileSync(suite, 'utf8')).toContain('testCaseIdAttributes:\n  - session.id');
    expect(readFileSync(suite, 'utf8')).toContain('- id: weather-session');
    // A session of one trace is a plain test case, scored on its trace, not once idle.
    expect(readFileSync(suite, 'utf8')).not.toContain('session: true');
    expect(readFileSync(suite, 'utf8')).toContain('expectedCalls:\n      - { name: get_weather }');
    const scored = await run(['score', '--suite', suite, '--format', 'json', sub]);
    expect(scored.code).toBe(0);
    const rows = (
      JSON.parse(scored.stdout) as {
        results: Array<{ testCaseId: string; scorer: string; label: string; session?: unknown }>;
      }
    ).results;
    expect(rows.map(r => [r.testCaseId, r.scorer, r.label, r.session])).toEqual([
      ['weather-session', 'tool_correctness', 'pass', undefined],
      ['weather-session', 'tool_trajectory', 'pass', undefined],
    ]);
  });

  it('--merge adds new cases and leaves the hand-edited suite byte for byte; --update re-records in place', async () => {
    const hand = `# Our weather suite: edited by hand.
name: weather   # keep this name
scorers:
  - tool_correctness
  - { name: tool_trajectory, match: exact, args: subset }

testCases:
  # The one everybody knows.
  - id: one-tool
    expectedTools: ["get_weather"]   # quoted on purpose
    expectedCalls:
      - {name: get_weather, args: {city: "Paris"}}

  - id: hand-written
    expectedTools: [nothing]

# trailing notes stay where they are
`;
    const file = join(dir, 'hand.yaml');
    writeFileSync(file, hand);
    const fixture = join(FIXTURES, 'captured-mastra-1.71.0.otlp.json');
    const merged = await run(['suite', 'record', '--merge', file, fixture]);
    expect(merged.code).toBe(0);
    expect(merged.stderr).toContain('2 added, 0 updated, 1 already in the suite and kept');
    const after = readFileSync(file, 'utf8');
    // Everything that was there is there, byte for byte, in place; the new cases follow the last one.
    const lastItem = '    expectedTools: [nothing]\n';
    const cut = hand.indexOf(lastItem) + lastItem.length;
    expect(after.startsWith(hand.slice(0, cut))).toBe(true);
    expect(after.endsWith(hand.slice(cut))).toBe(true);
    const added = after.slice(cut, after.length - (hand.length - cut));
    expect(added).toMatch(
      /^ {2}# recorded from trace [0-9a-f]{32}\n {2}- id: two-tools-in-order\n/,
    );
    expect(added).toContain('  - id: same-tool-twice\n');
    expect((await loadSuite(file)).cases.map(c => c.testCase.id)).toEqual([
      'one-tool',
      'hand-written',
      'two-tools-in-order',
      'same-tool-twice',
    ]);

    // Re-recording one-tool replaces that item (and only it); its comment goes with it.
    const again = await run(['suite', 'record', '--merge', file, '--update', 'one-tool', fixture]);
    expect(again.stderr).toContain('0 added, 1 updated, 2 already in the suite and kept');
    const updated = readFileSync(file, 'utf8');
    expect(updated).not.toContain('quoted on purpose');
    expect(updated).toContain('  - id: hand-written\n    expectedTools: [nothing]\n');
    expect(updated.match(/- id: one-tool/g)).toHaveLength(1);
    expect(
      updated.startsWith(
        '# Our weather suite: edited by hand.\nname: weather   # keep this name\n',
      ),
    ).toBe(true);
    expect((await run(['score', '--suite', file, fixture])).stdout).not.toContain('"label":"fail"');

    const unknown = await run(['suite', 'record', '--merge', file, '--update', 'nope', fixture]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--update names test case(s) the suite does not have: nope');
  });
});

import { describe, expect, it } from 'vitest';
import { parseSuite } from '../suite/load-suite.js';
import { formatHtml } from './format-html.js';
import { countOutcomes, type ResultRow } from './result-row.js';

const row = (over: Partial<ResultRow>): ResultRow => ({
  traceId: 'a'.repeat(32),
  testCaseId: 'tc',
  scorer: 'tool_correctness',
  kind: 'deterministic',
  status: 'scored',
  score: 0,
  label: 'fail',
  reason: 'r',
  toolsUsed: [],
  toolSequence: [],
  details: {},
  ...over,
});

describe('formatHtml', () => {
  it('escapes every value that comes from traces or the suite', async () => {
    const suite = await parseSuite(
      'name: "<b>suite</b>"\nscorers: [tool_correctness]\ntestCases:\n  - id: tc\n    expectedTools: ["<img src=x>"]\n',
      's.yaml',
      '.',
    );
    const rows = [row({ reason: '<script>alert(1)</script>', toolSequence: [] })];
    const html = formatHtml(rows, {
      suite,
      summary: countOutcomes(rows),
      unmatched: 0,
      generatedAt: new Date(0),
    });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.toContain('<img src=x>');
    expect(html).toContain('−&#60;img src=x&#62;');
    expect(html).not.toContain('<b>suite</b>');
    // One inline script (the filter box) and nothing loaded from elsewhere.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).not.toMatch(/<[^>]*\s(src|href)=/);
  });

  it('counts a test case with no trace, and shows pass rates per scorer in %', async () => {
    const suite = await parseSuite(
      'name: s\nscorers: [tool_correctness]\ntestCases:\n  - id: a\n    expectedTools: [x]\n  - id: b\n    expectedTools: [x]\n',
      's.yaml',
      '.',
    );
    const rows = [
      row({ testCaseId: 'a', label: 'pass', score: 1 }),
      row({ testCaseId: 'a', label: 'pass', score: 1 }),
      row({ testCaseId: 'a', label: 'fail', score: 0 }),
      row({ testCaseId: 'b', status: 'missing', score: null, label: null, traceId: null }),
    ];
    const html = formatHtml(rows, {
      suite,
      summary: countOutcomes(rows),
      unmatched: 3,
      generatedAt: new Date(0),
    });
    expect(html).toContain('<td class="num bad">66.7%</td>');
    expect(html).toContain('<dt>Test cases with no trace</dt><dd>1</dd>');
    expect(html).toContain('<dt>Traces of no test case</dt><dd>3</dd>');
    expect(html).toContain('fail (2/3 pass)');
    expect(html).toContain('<td class="cell missing"');
  });
});

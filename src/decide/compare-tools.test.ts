import { describe, expect, it } from 'vitest';
import type { ToolRow } from '../results/tool-aggregates.js';
import { compareTools } from './compare-tools.js';

const row = (tool: string, calls: number, errors: number, checked = 0, invalid = 0): ToolRow => ({
  service: 'support',
  tool,
  calls,
  errors,
  refused: 0,
  checked,
  invalidArguments: invalid,
  unknown: 0,
  repeated: 0,
  errorRate: calls ? errors / calls : null,
  refusedRate: 0,
  invalidRate: checked ? invalid / checked : null,
  unknownRate: 0,
  repeatedRate: 0,
  p50Ms: null,
  p95Ms: null,
  versions: [],
  agents: [],
});

describe('compareTools', () => {
  it('names the tools whose error or invalid-argument rate changed significantly', () => {
    const report = compareTools(
      [row('lookup_order', 200, 2, 200, 1), row('get_weather', 100, 5), row('gone', 10, 0)],
      [row('lookup_order', 200, 30, 200, 1), row('get_weather', 100, 4), row('new', 5, 5)],
    );
    expect(report.map(c => [c.tool, c.metric, c.verdict, c.significant])).toEqual([
      ['lookup_order', 'error_rate', 'regressed', true],
      ['get_weather', 'error_rate', 'unchanged', false],
      ['lookup_order', 'invalid_arguments', 'unchanged', false],
    ]);
    expect(report[0]).toMatchObject({
      baseline: { count: 2, of: 200, rate: 0.01 },
      candidate: { count: 30, of: 200, rate: 0.15 },
    });
    expect(report[0]!.pValue).toBeLessThan(1e-6);
  });

  it('calls a significant fall an improvement, and one bad call against none no change', () => {
    const report = compareTools([row('a', 100, 40)], [row('a', 100, 5)]);
    expect(report[0]).toMatchObject({ verdict: 'improved', significant: true });
    expect(compareTools([row('b', 1, 0)], [row('b', 1, 1)])[0]).toMatchObject({
      verdict: 'unchanged',
      pValue: 0.5,
    });
  });
});

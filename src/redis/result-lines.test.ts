import { describe, expect, it } from 'vitest';
import type { StoredResult } from '../results/stored-result.js';
import { EntryResults, passResultLines, wholeResultLine } from './result-lines.js';

type Result = Omit<StoredResult, 'id'>;

const base: Result = {
  timeUnixMs: 1_795_894_422_753,
  traceId: 'a'.repeat(32),
  targetKind: 'test_case',
  suite: 'travel',
  testCaseId: 'book',
  scorer: 'tool_correctness',
  scorerKind: 'deterministic',
  scorerVersion: '7940e329944f',
  phase: 'all',
  status: 'scored',
  score: 0,
  label: 'fail',
  reason: 'missing lookup_order',
  expectedTools: ['search_flights', 'lookup_order'],
  toolSequence: ['search_flights', 'book_hotel', 'search_flights'],
  toolsUsed: ['search_flights', 'book_hotel'],
  serviceName: 'agent',
  serviceVersion: null,
  deploymentEnvironment: null,
  agentName: 'travel',
  agents: ['travel'],
  failingAgents: [],
  judgeCostUsd: null,
};

/** A pass's results as layout 2 writes them, read back from an entry that holds them. */
function roundTrip(results: Result[], before: string[] = []): Array<Result | undefined> {
  const lines = [...before, ...passResultLines(results)];
  const entry = new EntryResults(lines);
  return results.map((_, i) => entry.at(before.length + i));
}

describe('results stream lines, layout 2', () => {
  it('gives back each result of a pass exactly, in the field order layout 1 writes', () => {
    const second: Result = {
      ...base,
      scorer: 'tool_call_accuracy',
      scorerVersion: '0405a611e2bb',
      score: 1,
      label: 'pass',
      reason: 'called',
      failingTurn: 2,
    };
    // A later pass's fields it lacks (no agents), others it differs in, a field only it has.
    const third: Result = { ...base, status: 'failed', score: null, label: null };
    delete third.agents;
    delete third.failingAgents;
    const results = [base, second, third];
    const read = roundTrip(results, [wholeResultLine({ ...base, traceId: 'b'.repeat(32) })]);
    expect(read).toEqual(results);
    for (let i = 0; i < results.length; i++)
      expect(JSON.stringify(read[i])).toBe(JSON.stringify(results[i]));
  });

  it('writes a pass’s shared facts once: the next results are their differences alone', () => {
    const lines = passResultLines([base, { ...base, scorer: 'other', reason: 'ok' }]);
    expect(lines[1]).toBe('~{"scorer":"other","reason":"ok"}');
    // The tool sequence as indices into the tools used, defaults left out.
    expect(lines[0]).toContain('"toolSequence":[0,1,0]');
    expect(lines[0]).not.toContain('null');
    expect(lines.join('').length).toBeLessThan(2 * wholeResultLine(base).length * 0.7);
  });

  it('keeps names when the sequence has a tool the used list lacks, and odd values as they are', () => {
    const odd: Result = {
      ...base,
      toolSequence: ['x', '0'],
      toolsUsed: [],
      score: 0.5,
      serviceVersion: '1.2',
      phase: 'llm',
      sessionId: 'conversation ~1\n"quoted"',
      sessionPart: 2,
    };
    expect(roundTrip([odd, { ...odd, scorerKind: 'llm', judgeCostUsd: 0.01 }])).toEqual([
      odd,
      { ...odd, scorerKind: 'llm', judgeCostUsd: 0.01 },
    ]);
  });

  it('reads layout 1 lines in the same entry, and no result for a difference with no whole line', () => {
    const entry = new EntryResults([wholeResultLine(base), '~{"scorer":"x"}']);
    expect(entry.at(0)).toEqual(base);
    expect(entry.at(1)).toEqual({ ...base, scorer: 'x' });
    expect(new EntryResults(['~{"scorer":"x"}']).at(0)).toBeUndefined();
  });
});

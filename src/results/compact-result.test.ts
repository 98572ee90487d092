import { describe, expect, it } from 'vitest';
import { compactResultJson, expandCompactResult } from './compact-result.js';
import { JsonTextWriter } from './json-text-writer.js';
import type { StoredResult } from './stored-result.js';

const result: StoredResult = {
  id: '7',
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
  expectedTools: null,
  toolSequence: ['search', 'book', 'search'],
  toolsUsed: ['search', 'book'],
  serviceName: 'agent',
  serviceVersion: null,
  deploymentEnvironment: null,
  agentName: 'travel',
  agents: ['travel'],
  failingAgents: [],
  judgeCostUsd: null,
};

const roundTrip = (r: StoredResult): unknown =>
  expandCompactResult(JSON.parse(compactResultJson(r)) as Record<string, unknown>);

describe('compact result JSON', () => {
  it('reads back every field, in the order the store writes them, defaults left out', () => {
    const json = compactResultJson(result);
    expect(JSON.stringify(roundTrip(result))).toBe(JSON.stringify(result));
    expect(json).not.toContain('null');
    expect(json).not.toContain('failingAgents');
    expect(json).toContain('"toolSequence":[0,1,0]');
    expect(json.length).toBeLessThan(JSON.stringify(result).length * 0.75);
    // A result whose store has not set its id yet: none written.
    expect(compactResultJson({ ...result, id: undefined })).toBe(json.replace('"id":"7",', ''));
  });

  it('keeps what is not a default: other values, names the used list lacks, no agents', () => {
    const other: StoredResult = {
      ...result,
      status: 'failed',
      phase: 'llm',
      score: null,
      label: null,
      judgeCostUsd: 0,
      toolSequence: ['x'],
      toolsUsed: [],
      failingTurn: 1,
    };
    delete other.agents;
    delete other.failingAgents;
    expect(roundTrip(other)).toEqual(other);
    const blamed = { ...result, failingAgents: ['travel'] };
    expect(roundTrip(blamed)).toEqual(blamed);
    const empty = { ...result, toolSequence: [], toolsUsed: [] };
    expect(roundTrip(empty)).toEqual(empty);
  });
});

describe('compact result JSON text', () => {
  it('is the text JSON.stringify writes of the result without its defaults', () => {
    const odd: StoredResult = {
      ...result,
      reason: 'quote " back \\ tab \t lone \ud800 é 中 😀',
      toolSequence: ['search', 'unknown', 'book'],
      expectedTools: ['search'],
      score: 0.125,
      failingAgents: ['travel'],
    };
    const { score, label, reason, expectedTools, toolSequence, toolsUsed, serviceName } = odd;
    expect(compactResultJson(odd)).toBe(
      JSON.stringify({
        id: '7',
        timeUnixMs: odd.timeUnixMs,
        traceId: odd.traceId,
        suite: 'travel',
        testCaseId: 'book',
        scorer: 'tool_correctness',
        scorerVersion: odd.scorerVersion,
        score,
        label,
        reason,
        expectedTools,
        toolSequence,
        toolsUsed,
        serviceName,
        agentName: 'travel',
        agents: ['travel'],
        failingAgents: ['travel'],
      }),
    );
    expect(compactResultJson(result)).toContain('"toolSequence":[0,1,0]');
    // A field holding an object: its keys are read as the result's (by JSON.stringify's replacer).
    const nested = { ...result, extra: { score: null, keep: 1 } } as unknown as StoredResult;
    expect(compactResultJson(nested)).toContain('"extra":{"keep":1}');
  });

  it("keeps no test case's id among the process's names, and writes it as any string", () => {
    // Every other name field holds the same names throughout: kept on the first result.
    compactResultJson(result);
    const kept = JsonTextWriter.namesKept;
    for (let i = 0; i < 600; i++) {
      const testCaseId = `case-${i}-of-a-large-suite`;
      expect(compactResultJson({ ...result, testCaseId })).toContain(
        `"testCaseId":${JSON.stringify(testCaseId)},`,
      );
    }
    expect(JsonTextWriter.namesKept).toBe(kept);
  });
});

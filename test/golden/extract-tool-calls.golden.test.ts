import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { normalizeTrace, type NormalizedTrace } from '../../src/normalize/normalize-trace.js';

const FIXTURES = new URL('../fixtures/otlp/', import.meta.url);
const EXPECTED = new URL('../fixtures/expected/', import.meta.url);

interface ExpectedCall {
  name: string;
  rawName?: string;
  canonicalName?: string;
  callId?: string;
  arguments?: unknown;
  result?: unknown;
  status: 'ok' | 'error';
  error?: string;
  source: 'executed' | 'requested';
  convention: string;
}
type Golden = Record<string, { toolsUsed: string[]; toolSequence: ExpectedCall[] }>;

const pairs = readdirSync(EXPECTED)
  .filter(f => f.endsWith('.tool-calls.json'))
  .map(f => f.replace('.tool-calls.json', ''));

async function tracesOf(file: URL): Promise<Map<string, NormalizedTrace>> {
  const read = await readTraceFiles([file.pathname]);
  expect(read.problems).toEqual([]);
  const out = new Map<string, NormalizedTrace>();
  for (const [traceId, spans] of groupSpansByTrace(read.spans)) {
    const trace = normalizeTrace(traceId, spans);
    if (trace.testCaseId) out.set(trace.testCaseId, trace);
  }
  return out;
}

describe('golden fixtures: every convention yields the expected tool calls', () => {
  it('has a fixture for each convention the extractor registry knows', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(16);
    for (const name of pairs) expect(existsSync(new URL(`${name}.otlp.json`, FIXTURES))).toBe(true);
  });

  const files = pairs.flatMap(name => {
    const list = [{ name, file: new URL(`${name}.otlp.json`, FIXTURES) }];
    const pb = new URL(`${name}.otlp.pb`, FIXTURES);
    if (existsSync(pb)) list.push({ name: `${name} (protobuf)`, file: pb });
    return list.map(entry => ({ ...entry, golden: name }));
  });

  it.each(files)('$name', async ({ file, golden }) => {
    const expected = JSON.parse(
      readFileSync(new URL(`${golden}.tool-calls.json`, EXPECTED), 'utf8'),
    ) as Golden;
    const traces = await tracesOf(file);
    expect([...traces.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [testCaseId, want] of Object.entries(expected)) {
      const trace = traces.get(testCaseId)!;
      expect(trace.toolsUsed, testCaseId).toEqual(want.toolsUsed);
      expect(trace.toolSequence, testCaseId).toHaveLength(want.toolSequence.length);
      want.toolSequence.forEach((w, i) => {
        const got = trace.toolSequence[i]!;
        const where = `${testCaseId} call ${i}`;
        expect(got.name, where).toBe(w.name);
        if (w.rawName !== undefined) expect(got.rawName, where).toBe(w.rawName);
        if (w.canonicalName !== undefined) expect(got.canonicalName, where).toBe(w.canonicalName);
        expect(got.callId, where).toBe(w.callId);
        expect(got.arguments, where).toEqual(w.arguments);
        expect(got.result, where).toEqual(w.result);
        expect(got.status, where).toBe(w.status);
        if (w.error !== undefined) expect(got.error, where).toBe(w.error);
        expect(got.source, where).toBe(w.source);
        expect(got.convention, where).toBe(w.convention);
      });
    }
  });
});

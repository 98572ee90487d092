import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { EXTRACTORS } from '../../src/normalize/extractors/index.js';
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
  /** `logs` when read from a GenAI log record (the OTLP logs signal). */
  signal?: 'logs';
}
type Golden = Record<string, { toolsUsed: string[]; toolSequence: ExpectedCall[] }>;

/**
 * Each extractor of the registry, by id, and the golden pairs that cover it: each of these must
 * yield at least one call reported by that extractor. An extractor added to the registry without
 * a fixture here fails the first test below.
 */
const FIXTURES_BY_EXTRACTOR: Record<string, string[]> = {
  mcp: ['hand-mcp'],
  'google-adk': ['hand-google-adk', 'captured-google-adk-2.0.0'],
  strands: ['hand-strands', 'captured-strands-1.19.0'],
  'semantic-kernel': ['hand-semantic-kernel'],
  mastra: ['hand-mastra', 'captured-mastra-1.71.0'],
  'pydantic-ai': ['hand-pydantic-ai'],
  langsmith: ['hand-langsmith', 'captured-langsmith-0.12.0'],
  langfuse: ['captured-langfuse-5.11.1'],
  genkit: ['captured-genkit-1.42.0'],
  voltagent: ['captured-voltagent-2.10.0'],
  'gen-ai-execute-tool': [
    'hand-gen-ai-semconv',
    'captured-ai-sdk-7.0.173',
    'captured-ai-sdk-7.0.173-openinference-vercel-3.2.1', // GenAI and OpenInference on one span
  ],
  'vercel-ai-sdk': [
    'captured-vercel-ai-sdk-v5',
    'hand-vercel-ai-sdk-v4-v6',
    'captured-ai-sdk-6.0.325',
  ],
  openinference: [
    'captured-openinference-openai',
    'hand-nested-instrumentations',
    'captured-langchain-openinference-1.5.14',
    'captured-langchain-openinference-scripted-model-1.5.14',
    'captured-langgraph-1.7.3-openinference-4.1.1',
    'captured-mcp-1.32.2-openinference-0.2.33', // the MCP server's TOOL spans in the client's trace
    'captured-openai-agents-0.20.0',
    'captured-anthropic-1.14.0-openinference-0.2.8', // tool_use blocks on LLM spans only
    // Mastra's tool spans as @mastra/arize rewrites them: OpenInference TOOL spans (with a
    // leftover mastra.span.type), the executed call kept over the model's request; a thrown tool.
    'captured-mastra-1.71.0-arize-1.3.8',
    'captured-mastra-1.71.0-arize-1.3.8-tool-error',
  ],
  traceloop: [
    'hand-openllmetry-legacy',
    'captured-traceloop-sdk-0.27.0',
    'captured-mcp-1.32.2-traceloop-0.27.0', // Traceloop's MCP instrumentation: traceloop.* spans
  ],
  logfire: ['hand-logfire'],
  'gen-ai-messages': [
    'captured-traceloop-openai',
    // MCP calls whose spans went to the client's session trace: the run keeps the requests.
    'captured-mcp-1.32.2-traceloop-0.27.0-shared-session',
    // OpenLIT: messages on the span and again in operation-details log records; results in
    // `role: tool` messages without call ids.
    'captured-openlit-1.15.0',
    // Python's openai-v2 instrumentation: the messages only in operation-details log records.
    'hand-python-openai-v2-logs',
  ],
  'gen-ai-legacy-events': [
    'hand-gen-ai-legacy-events',
    // The same events as OTLP log records: the OpenTelemetry and Elastic OpenAI instrumentations.
    'captured-opentelemetry-openai-0.21.0',
    'captured-opentelemetry-openai-0.21.0-no-content',
    'captured-elastic-openai-0.5.1-openai-4.104.0',
  ],
  'gen-ai-tool-name': ['hand-gen-ai-tool-name-fallback'],
};

const pairs = readdirSync(EXPECTED)
  .filter(f => f.endsWith('.tool-calls.json'))
  .map(f => f.replace('.tool-calls.json', ''));

async function tracesOf(...files: URL[]): Promise<Map<string, NormalizedTrace>> {
  const read = await readTraceFiles(files.map(f => f.pathname));
  expect(read.problems).toEqual([]);
  const out = new Map<string, NormalizedTrace>();
  for (const [traceId, spans] of groupSpansByTrace(read.spans)) {
    const trace = normalizeTrace(traceId, spans);
    if (trace.testCaseId) out.set(trace.testCaseId, trace);
  }
  return out;
}

describe('golden fixtures: every convention yields the expected tool calls', () => {
  it('names fixtures for exactly the extractors of the registry, and every fixture is a golden pair', () => {
    expect(Object.keys(FIXTURES_BY_EXTRACTOR).sort()).toEqual(EXTRACTORS.map(e => e.id).sort());
    for (const name of Object.values(FIXTURES_BY_EXTRACTOR).flat()) expect(pairs).toContain(name);
    for (const name of pairs) expect(existsSync(new URL(`${name}.otlp.json`, FIXTURES))).toBe(true);
  });

  it.each(Object.entries(FIXTURES_BY_EXTRACTOR))(
    'extractor %s finds its calls in its own fixtures %j',
    async (id, names) => {
      for (const name of names) {
        const expected = JSON.parse(
          readFileSync(new URL(`${name}.tool-calls.json`, EXPECTED), 'utf8'),
        ) as Golden;
        const want = Object.values(expected).flatMap(c => c.toolSequence);
        expect(
          want.some(c => c.convention === id),
          `${name} expects a call by ${id}`,
        ).toBe(true);
        const got = [...(await tracesOf(new URL(`${name}.otlp.json`, FIXTURES))).values()].flatMap(
          t => t.toolSequence,
        );
        expect(
          got.filter(c => c.convention === id).map(c => c.name),
          `${name}: calls reported by ${id}`,
        ).toEqual(want.filter(c => c.convention === id).map(c => c.name));
      }
    },
  );

  // Each pair's JSON file, and its protobuf files when captured too: the traces request, and the
  // logs request beside it (`.logs.pb`) for captures whose calls are in log records.
  const files = pairs.flatMap(name => {
    const list = [{ name, files: [new URL(`${name}.otlp.json`, FIXTURES)] }];
    const pb = new URL(`${name}.otlp.pb`, FIXTURES);
    const logs = new URL(`${name}.logs.pb`, FIXTURES);
    if (existsSync(pb))
      list.push({ name: `${name} (protobuf)`, files: existsSync(logs) ? [pb, logs] : [pb] });
    return list.map(entry => ({ ...entry, golden: name }));
  });

  it.each(files)('$name', async ({ files: inputs, golden }) => {
    const expected = JSON.parse(
      readFileSync(new URL(`${golden}.tool-calls.json`, EXPECTED), 'utf8'),
    ) as Golden;
    const traces = await tracesOf(...inputs);
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
        expect(got.signal, where).toBe(w.signal);
      });
    }
  });
});

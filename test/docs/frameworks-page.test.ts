import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { inspectTrace } from '../../src/normalize/inspect-trace.js';
import { ROOT } from '../helpers/markdown-docs.js';

const FIXTURES = join(ROOT, 'test/fixtures/otlp');

/**
 * The captures behind each row of docs/frameworks.md's "Per framework" table, by the row's
 * framework name. A row added without a capture fails here, by name.
 */
const CAPTURES: Record<string, string[]> = {
  'Vercel AI SDK 5, 6': ['captured-vercel-ai-sdk-v5', 'captured-ai-sdk-6.'],
  'Vercel AI SDK 7': ['captured-ai-sdk-7.0.173.'],
  "Vercel AI SDK 7 through OpenInference's span processor (Phoenix)": [
    'captured-ai-sdk-7.0.173-openinference-vercel-',
  ],
  Mastra: ['captured-mastra-'],
  'Mastra through Arize or Phoenix (OpenInference)': ['captured-mastra-1.71.0-arize-'],
  'Langfuse SDK': ['captured-langfuse-'],
  'LangSmith (OTel mode)': ['captured-langsmith-'],
  Genkit: ['captured-genkit-'],
  'OpenInference (LangChain, OpenAI Agents SDK, OpenAI)': [
    'captured-langchain-openinference-',
    'captured-openai-agents-',
    'captured-openinference-openai',
  ],
  'LangGraph prebuilt ReAct agent (OpenInference)': ['captured-langgraph-'],
  'LangChain and LangGraph (OpenInference), tagged in RunnableConfig metadata': [
    'captured-langgraph-1.7.3-openinference-4.1.1-metadata',
  ],
  'Anthropic SDK (OpenInference)': ['captured-anthropic-'],
  'MCP client and server (OpenInference)': ['captured-mcp-1.32.2-openinference-'],
  'MCP client and server (Traceloop)': ['captured-mcp-1.32.2-traceloop-'],
  'OpenLLMetry / Traceloop': ['captured-traceloop-'],
  'LlamaIndex TS (Traceloop)': ['captured-llamaindex-'],
  VoltAgent: ['captured-voltagent-'],
  'Strands Agents (TypeScript)': ['captured-strands-'],
  'Google ADK (TypeScript)': ['captured-google-adk-'],
  "OpenTelemetry's OpenAI instrumentation (messages as log records)": [
    'captured-opentelemetry-openai-',
  ],
  "Elastic's EDOT OpenAI instrumentation (messages as log records)": ['captured-elastic-openai-'],
  OpenLIT: ['captured-openlit-'],
};

/**
 * The rows of the "Per framework" table: framework name, the versions captured (each a number in
 * its second column), and the attribute the id is read as.
 */
function rows(): Array<{ framework: string; versions: string[]; readAs: string }> {
  const page = readFileSync(join(ROOT, 'docs/frameworks.md'), 'utf8');
  const section = page.slice(page.indexOf('## Per framework'));
  const table = section.slice(
    section.indexOf('| framework |'),
    section.indexOf('\n\n', section.indexOf('| framework |')),
  );
  return table
    .split('\n')
    .slice(2)
    .map(line => line.split(' | ').map(c => c.replace(/^\| |\s*\|$/g, '')))
    .filter(cells => !cells[0]!.startsWith('anything else'))
    .map(cells => ({
      framework: cells[0]!,
      versions: cells[1]!.match(/\d+\.\d+\.\d+/g) ?? [],
      readAs: /`([^`]+)`/.exec(cells.at(-1)!)![1]!,
    }));
}

describe('docs/frameworks.md', () => {
  const all = readdirSync(FIXTURES);
  it('lists the frameworks it covers', () => {
    expect(rows().map(r => r.framework)).toEqual(Object.keys(CAPTURES));
  });

  it.each(rows())(
    '$framework: a capture of its versions whose traces carry $readAs',
    async ({ framework, versions, readAs }) => {
      const prefixes = CAPTURES[framework];
      expect(
        prefixes,
        `no capture is named for "${framework}": add one, and its prefix here`,
      ).toBeDefined();
      const files = all.filter(f => prefixes!.some(p => f.startsWith(p)) && f.endsWith('.json'));
      expect(files.length).toBeGreaterThan(0);
      expect(
        versions.length,
        `"${framework}" names no version it was captured with`,
      ).toBeGreaterThan(0);
      for (const version of versions)
        expect(
          files.some(f => f.includes(`-${version}`)),
          `"${framework}" says ${version} was captured, but no capture of it is named with it`,
        ).toBe(true);
      const attributes = new Set<string | null>();
      for (const file of files) {
        const { spans } = await readTraceFiles([join(FIXTURES, file)]);
        for (const [id, trace] of groupSpansByTrace(spans))
          attributes.add(inspectTrace(id, trace).testCaseIdAttribute);
      }
      expect([...attributes]).toContain(readAs);
    },
  );
});

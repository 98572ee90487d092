/**
 * Writes the HAND-BUILT fixtures in test/fixtures/otlp/hand-*.otlp.json: traces in the shapes
 * frameworks that cannot run here (Python: Pydantic AI, Google ADK, Strands, LangSmith, Logfire,
 * Semantic Kernel, OpenLLMetry's legacy attributes, the OpenTelemetry openai-v2 instrumentation's
 * log records; Mastra's exporter; MCP; the AI SDK v4's and MCP's refusals) emit, one module per
 * convention in scripts/hand-fixtures/, written from the sources cited in
 * ../shared/reference/otel-tool-conventions.md §2. Real captures are `captured-*`
 * (scripts/capture-fixtures.ts). Run: `npx tsx scripts/build-hand-fixtures.ts`.
 */
import { writeFileSync } from 'node:fs';
import {
  otlpLogsRequest,
  otlpRequest,
  type LogInput,
  type SpanInput,
} from '../test/helpers/otlp-json-builder.js';
import { fixture as genAiLegacyEvents } from './hand-fixtures/gen-ai-legacy-events.js';
import { fixture as genAiSemconv } from './hand-fixtures/gen-ai-semconv.js';
import { fixture as genAiToolNameFallback } from './hand-fixtures/gen-ai-tool-name-fallback.js';
import { fixture as googleAdk } from './hand-fixtures/google-adk.js';
import { fixture as langsmith } from './hand-fixtures/langsmith.js';
import { fixture as logfire } from './hand-fixtures/logfire.js';
import { fixture as mastra } from './hand-fixtures/mastra.js';
import { fixture as mcp } from './hand-fixtures/mcp.js';
import { fixture as mcpRefusals } from './hand-fixtures/mcp-refusals.js';
import { fixture as nestedInstrumentations } from './hand-fixtures/nested-instrumentations.js';
import { fixture as openllmetryLegacy } from './hand-fixtures/openllmetry-legacy.js';
import { fixture as pydanticAi } from './hand-fixtures/pydantic-ai.js';
import { fixture as pythonOpenAiV2Logs } from './hand-fixtures/python-openai-v2-logs.js';
import { fixture as semanticKernel } from './hand-fixtures/semantic-kernel.js';
import { fixture as strands } from './hand-fixtures/strands.js';
import { fixture as vercelAiSdkV4Refusals } from './hand-fixtures/vercel-ai-sdk-v4-refusals.js';
import { fixture as vercelAiSdkV4V6 } from './hand-fixtures/vercel-ai-sdk-v4-v6.js';

const OUT = new URL('../test/fixtures/otlp/', import.meta.url);

const fixtures: Array<{ name: string; spans: SpanInput[]; logs?: LogInput[] }> = [
  genAiSemconv,
  mastra,
  pydanticAi,
  googleAdk,
  strands,
  langsmith,
  logfire,
  mcp,
  semanticKernel,
  openllmetryLegacy,
  nestedInstrumentations,
  vercelAiSdkV4V6,
  genAiToolNameFallback,
  genAiLegacyEvents,
  pythonOpenAiV2Logs,
  // Refusal shapes no framework here writes: the AI SDK v4's, MCP's in the semantic conventions.
  vercelAiSdkV4Refusals,
  mcpRefusals,
];

// A fixture with log records is a JSON array of two requests, traces then logs, as an app
// sending both signals exports them.
for (const { name, spans, logs } of fixtures) {
  const body = logs ? [otlpRequest(spans), otlpLogsRequest(logs)] : otlpRequest(spans);
  writeFileSync(new URL(`${name}.otlp.json`, OUT), `${JSON.stringify(body, null, 2)}\n`);
}
console.log(`wrote ${fixtures.length} hand-built fixtures`);

/**
 * Elastic's EDOT OpenAI instrumentation (`@elastic/opentelemetry-instrumentation-openai`), the
 * OpenTelemetry model in Elastic's releases: `chat <model>` spans, and the messages as log
 * records. Its 0.5 releases instrument `openai` 4.x, installed in this folder. With message
 * content (see `../otel-genai-capture.ts`).
 */
import { createRequire } from 'node:module';
import { OpenAIInstrumentation } from '@elastic/opentelemetry-instrumentation-openai';
import { captureGenAiLogs } from '../otel-genai-capture.js';
import { versionOf } from '../write-fixture.js';

const here = new URL('./', import.meta.url);
await captureGenAiLogs(
  `captured-elastic-openai-${versionOf('@elastic/opentelemetry-instrumentation-openai', here)}-openai-${versionOf('openai', here)}`,
  'elastic-openai-travel-agent',
  new OpenAIInstrumentation(),
  false,
  () => createRequire(import.meta.url)('openai') as never,
);

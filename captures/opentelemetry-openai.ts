/**
 * The OpenTelemetry project's own OpenAI instrumentation (`@opentelemetry/instrumentation-openai`)
 * set up as its README says, with a logger provider beside the tracer provider: a `chat <model>`
 * span per model call, and every message as a log record (`gen_ai.user.message`,
 * `gen_ai.choice`, `gen_ai.tool.message`, …) carrying that span's context. With and without
 * message content (see `otel-genai-capture.ts`).
 */
import { createRequire } from 'node:module';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { captureGenAiLogs } from './otel-genai-capture.js';
import { versionOf } from './write-fixture.js';

await captureGenAiLogs(
  `captured-opentelemetry-openai-${versionOf('@opentelemetry/instrumentation-openai')}`,
  'otel-openai-travel-agent',
  new OpenAIInstrumentation(),
  true,
  () => createRequire(import.meta.url)('openai') as never,
);

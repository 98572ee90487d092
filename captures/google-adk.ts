/**
 * Google's Agent Development Kit for TypeScript (`@google/adk`) as its docs show it: an `LlmAgent`
 * with `FunctionTool` tools on a Gemini model, run by an `InMemoryRunner`, with ADK's built-in
 * OpenTelemetry tracing (its `gcp.vertex.agent` tracer on the global provider). Gemini is the
 * scripted Gemini-API server (`scripted-gemini-server.ts`), reached by `@google/genai` through
 * `GOOGLE_GEMINI_BASE_URL` over real HTTP. The test case id is set as spanscore documents it for any
 * framework: an attribute on a parent span.
 */
import { trace } from '@opentelemetry/api';
import { SCENARIOS, TOOLS, runTool } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { scriptedGeminiServer } from './scripted-gemini-server.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const GEMINI_MODEL = 'gemini-2.5-flash';
const { provider, exporter } = recordingProvider('adk-travel-agent');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('app');
// ADK takes its tracer when its module loads, through its own copy of @opentelemetry/api: the
// global provider must be set first (as an app's tracing set-up file does) or ADK never sees it.
const { FunctionTool, InMemoryRunner, LlmAgent } = await import('@google/adk');

const tools = Object.entries(TOOLS).map(
  ([name, t]) =>
    new FunctionTool({
      name,
      description: t.description,
      parameters: toolSchema(name),
      execute: (input: unknown) => runTool(name, input),
    }),
);

for (const scenario of SCENARIOS) {
  const server = await scriptedGeminiServer(scenario, GEMINI_MODEL);
  process.env.GOOGLE_GEMINI_BASE_URL = server.baseURL;
  process.env.GOOGLE_API_KEY = 'capture';
  const agent = new LlmAgent({
    name: 'travel_agent',
    model: GEMINI_MODEL,
    instruction: 'You help travellers with the weather and flights.',
    tools,
  });
  const runner = new InMemoryRunner({ agent, appName: 'travel' });
  const session = await runner.sessionService.createSession({ appName: 'travel', userId: 'u1' });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      for await (const event of runner.runAsync({
        userId: 'u1',
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: scenario.prompt }] },
      }))
        void event;
      span.end();
    },
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(`captured-google-adk-${versionOf('@google/adk')}`, exporter.getFinishedSpans());

import type { ToolCallExtractor } from './extractor.js';
import { genAiExecuteTool } from './gen-ai-execute-tool.js';
import { genAiLegacyEvents } from './gen-ai-legacy-events.js';
import { genAiMessages } from './gen-ai-messages.js';
import { genAiToolNameFallback } from './gen-ai-tool-name.js';
import { genkit } from './genkit.js';
import { googleAdk } from './google-adk.js';
import { langfuse } from './langfuse.js';
import { langsmith } from './langsmith.js';
import { logfire } from './logfire.js';
import { mastra } from './mastra.js';
import { mcpToolsCall } from './mcp.js';
import { openInference } from './openinference.js';
import { pydanticAi } from './pydantic-ai.js';
import { semanticKernel } from './semantic-kernel.js';
import { strands } from './strands.js';
import { traceloop } from './traceloop.js';
import { vercelAiSdk } from './vercel-ai-sdk.js';
import { voltAgent } from './voltagent.js';

/**
 * Every convention, in the order they are asked. For executed tool spans the first extractor
 * that recognizes a span claims it, so the specific ones come before the generic ones.
 */
export const EXTRACTORS: readonly ToolCallExtractor[] = [
  mcpToolsCall, // before gen-ai: MCP spans also set execute_tool but name the tool differently
  googleAdk, // before gen-ai: arguments in gcp.vertex.agent.*; skips the "(merged tools)" span
  strands, // before gen-ai: arguments and results in span events
  semanticKernel, // before gen-ai: same attributes, recognized by its scope for the record
  mastra, // before gen-ai: mastra.span.type also marks MCP tool calls
  pydanticAi, // before gen-ai: v2 spans are "running tool" without execute_tool
  langsmith, // langsmith.span.kind=tool also sets execute_tool, with inputs in gen_ai.prompt
  langfuse, // langfuse.observation.type=tool / generation (its SDK's own spans)
  genkit, // genkit:metadata:subtype=tool / model; no GenAI attributes at all
  voltAgent, // span.type=tool with tool.name / input / output; no GenAI attributes
  genAiExecuteTool, // OTel GenAI execute_tool, Vercel @ai-sdk/otel v7, Pydantic AI v3+
  vercelAiSdk, // ai.toolCall spans (v4–v6) and ai.response.toolCalls
  openInference, // openinference.span.kind=TOOL; LLM spans' llm.output_messages
  traceloop, // traceloop.span.kind=tool; legacy gen_ai.completion.<i>.tool_calls
  logfire, // "Function: <name>" spans; the events attribute on model spans
  genAiMessages, // requested calls only: gen_ai.output.messages / input.messages
  genAiLegacyEvents, // requested calls only: gen_ai.choice / assistant.message events
  genAiToolNameFallback, // last: any non-model span with gen_ai.tool.name
];

/**
 * Writes the HAND-BUILT fixtures in test/fixtures/otlp/hand-*.otlp.json: traces in the shapes
 * frameworks that cannot run here (Python: Pydantic AI, Google ADK, Strands, LangSmith, Logfire,
 * Semantic Kernel, OpenLLMetry's legacy attributes; Mastra's exporter; MCP) emit, written from
 * the sources cited in ../shared/reference/otel-tool-conventions.md §2. Real captures are
 * `captured-*` (scripts/capture-fixtures.ts). Run: `npx tsx scripts/build-hand-fixtures.ts`.
 */
import { writeFileSync } from 'node:fs';
import { otlpRequest, spanId, traceId, type SpanInput } from '../test/helpers/otlp-json-builder.js';

const OUT = new URL('../test/fixtures/otlp/', import.meta.url);
const j = (v: unknown): string => JSON.stringify(v);
const fixtures: Record<string, SpanInput[]> = {};

// OTel GenAI semconv v1.38: invoke_agent → chat (requests) → execute_tool → chat.
{
  const t = traceId(101);
  const s = (n: number): string => spanId(101, n);
  fixtures['hand-gen-ai-semconv'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'invoke_agent weather-agent',
      startMs: 0,
      endMs: 100,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'weather-agent',
        'spanscore.test_case.id': 'gen-ai-semconv',
        'gen_ai.input.messages': j([
          { role: 'user', parts: [{ type: 'text', content: 'Weather and time in Paris?' }] },
        ]),
        'gen_ai.output.messages': j([
          {
            role: 'assistant',
            parts: [{ type: 'text', content: 'Sunny, 21°C. The time lookup failed.' }],
            finish_reason: 'stop',
          },
        ]),
      },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'chat gpt-4o',
      kind: 3,
      startMs: 1,
      endMs: 10,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.output.messages': j([
          {
            role: 'assistant',
            parts: [
              {
                type: 'tool_call',
                id: 'call_1',
                name: 'get_weather',
                arguments: { location: 'Paris' },
              },
              {
                type: 'tool_call',
                id: 'call_2',
                name: 'functions.lookup-time',
                arguments: { tz: 'Europe/Paris' },
              },
            ],
            finish_reason: 'tool_call',
          },
        ]),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'execute_tool get_weather',
      startMs: 11,
      endMs: 20,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.call.arguments': j({ location: 'Paris' }),
        'gen_ai.tool.call.result': j({ temperature: 21, condition: 'sunny' }),
      },
    },
    {
      traceId: t,
      spanId: s(4),
      parentSpanId: s(1),
      name: 'execute_tool functions.lookup-time',
      startMs: 21,
      endMs: 30,
      status: { code: 2, message: 'time service timed out' },
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'functions.lookup-time',
        'gen_ai.tool.call.id': 'call_2',
        'gen_ai.tool.call.arguments': { tz: 'Europe/Paris' },
        'error.type': 'TimeoutError',
      },
    },
    {
      traceId: t,
      spanId: s(5),
      parentSpanId: s(1),
      name: 'chat gpt-4o',
      kind: 3,
      startMs: 31,
      endMs: 40,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.input.messages': j([
          { role: 'user', parts: [{ type: 'text', content: 'Weather and time in Paris?' }] },
          {
            role: 'assistant',
            parts: [
              {
                type: 'tool_call',
                id: 'call_1',
                name: 'get_weather',
                arguments: { location: 'Paris' },
              },
            ],
          },
          {
            role: 'tool',
            parts: [{ type: 'tool_call_response', id: 'call_1', response: 'sunny' }],
          },
        ]),
        'gen_ai.output.messages': j([
          {
            role: 'assistant',
            parts: [{ type: 'text', content: 'Sunny, 21°C. The time lookup failed.' }],
            finish_reason: 'stop',
          },
        ]),
      },
    },
  ];
}

// Mastra @mastra/otel-exporter: tool_call and mcp_tool_call spans; requests on MODEL_GENERATION.
{
  const t = traceId(102);
  const s = (n: number): string => spanId(102, n);
  fixtures['hand-mastra'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'invoke_agent weatherAgent',
      scope: 'mastra',
      startMs: 0,
      endMs: 50,
      attributes: {
        'mastra.span.type': 'agent_run',
        'gen_ai.operation.name': 'invoke_agent',
        'test_case.id': 'mastra',
      },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'chat gpt-4o-mini',
      scope: 'mastra',
      startMs: 1,
      endMs: 9,
      attributes: {
        'mastra.span.type': 'model_generation',
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.output.messages': j([
          {
            role: 'assistant',
            parts: [
              {
                type: 'tool_call',
                id: 'call_m1',
                name: 'weatherTool',
                arguments: { city: 'Lima' },
              },
            ],
          },
        ]),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'execute_tool weatherTool',
      scope: 'mastra',
      startMs: 10,
      endMs: 20,
      attributes: {
        'mastra.span.type': 'tool_call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'weatherTool',
        'gen_ai.tool.call.id': 'call_m1',
        'gen_ai.tool.call.arguments': j({ city: 'Lima' }),
        'gen_ai.tool.call.result': j({ temp: 19 }),
        'gen_ai.tool.description': 'Get weather',
      },
    },
    {
      traceId: t,
      spanId: s(4),
      parentSpanId: s(1),
      name: 'execute_tool search_docs',
      scope: 'mastra',
      startMs: 21,
      endMs: 30,
      attributes: {
        'mastra.span.type': 'mcp_tool_call',
        'gen_ai.tool.name': 'search_docs',
        'server.address': 'docs',
        'gen_ai.tool.call.arguments': j({ q: 'climate' }),
      },
    },
  ];
}

// Pydantic AI: instrumentation v2 ("running tool") and current (execute_tool + logfire.msg).
{
  const t1 = traceId(103);
  const t2 = traceId(104);
  fixtures['hand-pydantic-ai'] = [
    {
      traceId: t1,
      spanId: spanId(103, 1),
      name: 'agent run',
      scope: 'pydantic-ai',
      startMs: 0,
      endMs: 30,
      attributes: { 'test_case.id': 'pydantic-ai-v2', 'logfire.msg': 'roulette_agent run' },
    },
    {
      traceId: t1,
      spanId: spanId(103, 2),
      parentSpanId: spanId(103, 1),
      name: 'running tool',
      scope: 'pydantic-ai',
      startMs: 5,
      endMs: 10,
      attributes: {
        'gen_ai.tool.name': 'roulette_wheel',
        'gen_ai.tool.call.id': 'pyd_call_1',
        tool_arguments: j({ square: 18 }),
        tool_response: 'loser',
      },
    },
    {
      traceId: t2,
      spanId: spanId(104, 1),
      name: 'invoke_agent support_agent',
      scope: 'pydantic-ai',
      startMs: 0,
      endMs: 30,
      attributes: {
        'test_case.id': 'pydantic-ai-current',
        'gen_ai.operation.name': 'invoke_agent',
      },
    },
    {
      traceId: t2,
      spanId: spanId(104, 2),
      parentSpanId: spanId(104, 1),
      name: 'execute_tool customer_balance',
      scope: 'pydantic-ai',
      startMs: 5,
      endMs: 10,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'customer_balance',
        'gen_ai.tool.call.id': 'pyd_call_2',
        'gen_ai.tool.call.arguments': j({ include_pending: true }),
        'gen_ai.tool.call.result': '123.45',
        'logfire.msg': 'running tool: customer_balance',
      },
    },
  ];
}

// Google ADK: parallel calls under "execute_tool (merged tools)"; requests in llm_response.
{
  const t = traceId(105);
  const s = (n: number): string => spanId(105, n);
  const scope = 'gcp.vertex.agent';
  fixtures['hand-google-adk'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'invoke_agent weather_time_agent',
      scope,
      startMs: 0,
      endMs: 60,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'google-adk' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'call_llm',
      scope,
      startMs: 1,
      endMs: 10,
      attributes: {
        'gen_ai.request.model': 'gemini-2.5-flash',
        'gcp.vertex.agent.llm_request': j({
          contents: [{ role: 'user', parts: [{ text: 'Weather and time in New York?' }] }],
        }),
        'gcp.vertex.agent.llm_response': j({
          content: {
            role: 'model',
            parts: [
              {
                function_call: { id: 'adk-fc-1', name: 'get_weather', args: { city: 'New York' } },
              },
              { function_call: { name: 'get_current_time', args: { city: 'New York' } } },
            ],
          },
        }),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'execute_tool (merged tools)',
      scope,
      startMs: 11,
      endMs: 30,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': '(merged tools)',
        'gcp.vertex.agent.tool_call_args': 'N/A',
      },
    },
    {
      traceId: t,
      spanId: s(4),
      parentSpanId: s(3),
      name: 'execute_tool get_weather',
      scope,
      startMs: 12,
      endMs: 20,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'adk-fc-1',
        'gen_ai.tool.type': 'FunctionTool',
        'gcp.vertex.agent.tool_call_args': j({ city: 'New York' }),
        'gcp.vertex.agent.tool_response': j({ result: 'sunny, 25°C' }),
      },
    },
    {
      traceId: t,
      spanId: s(5),
      parentSpanId: s(3),
      name: 'execute_tool get_current_time',
      scope,
      startMs: 13,
      endMs: 21,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_current_time',
        'gen_ai.tool.call.id': '<not specified>',
        'gcp.vertex.agent.tool_call_args': j({ city: 'New York' }),
        'gcp.vertex.agent.tool_response': j({ status: 'success', report: '10:30' }),
      },
    },
  ];
}

// Strands Agents: default mode (events gen_ai.tool.message / gen_ai.choice) and latest mode.
{
  const t1 = traceId(106);
  const t2 = traceId(107);
  const a = { 'gen_ai.system': 'strands-agents' };
  fixtures['hand-strands'] = [
    {
      traceId: t1,
      spanId: spanId(106, 1),
      name: 'invoke_agent Strands Agents',
      scope: 'strands.telemetry.tracer',
      startMs: 0,
      endMs: 40,
      attributes: {
        ...a,
        'gen_ai.operation.name': 'invoke_agent',
        'test_case.id': 'strands-default',
      },
    },
    {
      traceId: t1,
      spanId: spanId(106, 2),
      parentSpanId: spanId(106, 1),
      name: 'chat',
      scope: 'strands.telemetry.tracer',
      startMs: 1,
      endMs: 9,
      attributes: {
        ...a,
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'us.anthropic.claude',
      },
      events: [
        {
          name: 'gen_ai.user.message',
          atMs: 1,
          attributes: { content: j([{ text: 'What is 2+2?' }]) },
        },
        {
          name: 'gen_ai.choice',
          atMs: 9,
          attributes: {
            finish_reason: 'tool_use',
            message: j([
              {
                toolUse: {
                  toolUseId: 'tooluse_calc',
                  name: 'calculator',
                  input: { expression: '2+2' },
                },
              },
            ]),
          },
        },
      ],
    },
    {
      traceId: t1,
      spanId: spanId(106, 3),
      parentSpanId: spanId(106, 1),
      name: 'execute_tool calculator',
      scope: 'strands.telemetry.tracer',
      startMs: 10,
      endMs: 15,
      attributes: {
        ...a,
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'calculator',
        'gen_ai.tool.call.id': 'tooluse_calc',
        'gen_ai.tool.status': 'success',
      },
      events: [
        {
          name: 'gen_ai.tool.message',
          atMs: 10,
          attributes: { role: 'tool', content: j({ expression: '2+2' }), id: 'tooluse_calc' },
        },
        {
          name: 'gen_ai.choice',
          atMs: 15,
          attributes: { message: j([{ text: '4' }]), id: 'tooluse_calc' },
        },
      ],
    },
    {
      traceId: t2,
      spanId: spanId(107, 1),
      name: 'invoke_agent Strands Agents',
      scope: 'strands.telemetry.tracer',
      startMs: 0,
      endMs: 40,
      attributes: {
        'gen_ai.provider.name': 'strands-agents',
        'gen_ai.operation.name': 'invoke_agent',
        'test_case.id': 'strands-latest',
      },
    },
    {
      traceId: t2,
      spanId: spanId(107, 2),
      parentSpanId: spanId(107, 1),
      name: 'execute_tool current_time',
      scope: 'strands.telemetry.tracer',
      startMs: 5,
      endMs: 8,
      attributes: {
        'gen_ai.provider.name': 'strands-agents',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'current_time',
        'gen_ai.tool.call.id': 'tooluse_time',
        'gen_ai.tool.status': 'error',
      },
      status: { code: 2, message: 'unknown timezone' },
      events: [
        {
          name: 'gen_ai.client.inference.operation.details',
          atMs: 8,
          attributes: {
            'gen_ai.input.messages': j([
              {
                role: 'tool',
                parts: [
                  {
                    type: 'tool_call',
                    id: 'tooluse_time',
                    name: 'current_time',
                    arguments: [{ content: { timezone: 'Mars/Olympus' } }],
                  },
                ],
              },
            ]),
            'gen_ai.output.messages': j([
              {
                role: 'tool',
                parts: [
                  {
                    type: 'tool_call_response',
                    id: 'tooluse_time',
                    response: [{ text: 'unknown timezone' }],
                  },
                ],
              },
            ]),
          },
        },
      ],
    },
  ];
}

// LangSmith OTel exporter: tool run span with gen_ai.prompt / gen_ai.completion; llm run with tool_calls.
{
  const t = traceId(108);
  const s = (n: number): string => spanId(108, n);
  fixtures['hand-langsmith'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'AgentExecutor',
      scope: 'langsmith',
      startMs: 0,
      endMs: 50,
      attributes: { 'langsmith.span.kind': 'chain', 'test_case.id': 'langsmith' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'ChatOpenAI',
      scope: 'langsmith',
      startMs: 1,
      endMs: 10,
      attributes: {
        'langsmith.span.kind': 'llm',
        'gen_ai.operation.name': 'chat',
        'gen_ai.completion': j({
          generations: [
            [
              {
                message: {
                  lc: 1,
                  type: 'constructor',
                  kwargs: {
                    content: '',
                    tool_calls: [
                      {
                        name: 'tavily_search',
                        args: { query: 'weather in SF' },
                        id: 'call_ls_1',
                        type: 'tool_call',
                      },
                    ],
                  },
                },
              },
            ],
          ],
        }),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'tavily_search',
      scope: 'langsmith',
      startMs: 11,
      endMs: 20,
      attributes: {
        'langsmith.span.kind': 'tool',
        'gen_ai.operation.name': 'execute_tool',
        'langsmith.trace.name': 'tavily_search',
        'gen_ai.prompt': j({ query: 'weather in SF' }),
        'gen_ai.completion': j({ output: '60 degrees and foggy' }),
      },
    },
  ];
}

// Logfire's OpenAI Agents integration: "Function: <name>" spans; an events attribute on the model span.
{
  const t = traceId(109);
  const s = (n: number): string => spanId(109, n);
  fixtures['hand-logfire'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'Agent workflow',
      scope: 'logfire.openai_agents',
      startMs: 0,
      endMs: 50,
      attributes: { 'logfire.msg_template': 'Agent workflow', 'test_case.id': 'logfire' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'Responses API with gpt-4o',
      scope: 'logfire.openai_agents',
      startMs: 1,
      endMs: 10,
      attributes: {
        'gen_ai.system': 'openai',
        events: j([
          { 'event.name': 'gen_ai.user.message', content: 'Weather in Tokyo?', role: 'user' },
          {
            'event.name': 'gen_ai.choice',
            index: 0,
            message: {
              role: 'assistant',
              tool_calls: [
                {
                  id: 'call_lf_1',
                  type: 'function',
                  function: { name: 'get_weather', arguments: j({ city: 'Tokyo' }) },
                },
              ],
            },
          },
        ]),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'Function: get_weather',
      scope: 'logfire.openai_agents',
      startMs: 11,
      endMs: 15,
      attributes: {
        'logfire.msg_template': 'Function: {name}',
        name: 'get_weather',
        input: j({ city: 'Tokyo' }),
        output: 'rainy',
      },
    },
  ];
}

// MCP tools/call: client span and nested server span of one call; the model named it with a namespace.
{
  const t = traceId(110);
  const s = (n: number): string => spanId(110, n);
  fixtures['hand-mcp'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'invoke_agent coder',
      startMs: 0,
      endMs: 50,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'mcp' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'chat claude',
      kind: 3,
      startMs: 1,
      endMs: 8,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'claude',
        'gen_ai.output.messages': j([
          {
            role: 'assistant',
            parts: [
              {
                type: 'tool_call',
                name: 'mcp__filesystem__read_file',
                arguments: { path: '/tmp/notes.txt' },
              },
            ],
          },
        ]),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'tools/call read_file',
      kind: 3,
      startMs: 10,
      endMs: 30,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_file',
        'mcp.session.id': 'sess-1',
      },
    },
    {
      traceId: t,
      spanId: s(4),
      parentSpanId: s(3),
      name: 'tools/call read_file',
      kind: 2,
      service: 'fs-mcp-server',
      startMs: 12,
      endMs: 28,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_file',
        'gen_ai.tool.call.arguments': j({ path: '/tmp/notes.txt' }),
        'gen_ai.tool.call.result': j({ content: [{ type: 'text', text: 'buy milk' }] }),
      },
    },
  ];
}

// Semantic Kernel (Python): requests as gen_ai.choice events; execute_tool with Plugin-function names.
{
  const t = traceId(111);
  const s = (n: number): string => spanId(111, n);
  fixtures['hand-semantic-kernel'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'invoke_agent ForecastAgent',
      scope: 'semantic_kernel.agents',
      startMs: 0,
      endMs: 50,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'test_case.id': 'semantic-kernel' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'chat.completions gpt-4o',
      scope: 'semantic_kernel.connectors.ai',
      startMs: 1,
      endMs: 9,
      attributes: {
        'gen_ai.operation.name': 'chat.completions',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.finish_reason': 'tool_calls',
      },
      events: [
        {
          name: 'gen_ai.choice',
          atMs: 9,
          attributes: {
            'gen_ai.event.content': j({
              index: 0,
              message: {
                role: 'assistant',
                tool_calls: [
                  {
                    id: 'call_sk_1',
                    type: 'function',
                    function: {
                      name: 'WeatherPlugin-get_forecast',
                      arguments: j({ city: 'Oslo' }),
                    },
                  },
                ],
              },
              finish_reason: 'tool_calls',
            }),
          },
        },
      ],
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'execute_tool WeatherPlugin-get_forecast',
      scope: 'semantic_kernel.functions.kernel_function',
      startMs: 10,
      endMs: 20,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'WeatherPlugin-get_forecast',
        'gen_ai.tool.call.id': 'call_sk_1',
        'gen_ai.tool.description': 'Get the forecast',
      },
    },
  ];
}

// OpenLLMetry legacy attributes (≤0.4x) and a Python @tool span with {"args","kwargs"} input.
{
  const t = traceId(112);
  const s = (n: number): string => spanId(112, n);
  fixtures['hand-openllmetry-legacy'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'support.workflow',
      scope: 'traceloop.tracer',
      startMs: 0,
      endMs: 50,
      attributes: {
        'traceloop.span.kind': 'workflow',
        'traceloop.entity.name': 'support',
        'test_case.id': 'openllmetry-legacy',
        'traceloop.entity.input': j({ args: ['Where is order A-1187?'], kwargs: {} }),
        'traceloop.entity.output': j('Order A-1187 has shipped.'),
      },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'openai.chat',
      kind: 3,
      scope: 'opentelemetry.instrumentation.openai',
      startMs: 1,
      endMs: 9,
      attributes: {
        'llm.request.type': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Where is order A-1187?',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.finish_reason': 'tool_calls',
        'gen_ai.completion.0.tool_calls.0.id': 'call_tl_1',
        'gen_ai.completion.0.tool_calls.0.name': 'lookup_order',
        'gen_ai.completion.0.tool_calls.0.arguments': j({ order_id: 'A-1187' }),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'lookup_order.tool',
      scope: 'traceloop.tracer',
      startMs: 10,
      endMs: 15,
      attributes: {
        'traceloop.span.kind': 'tool',
        'traceloop.entity.name': 'lookup_order',
        'traceloop.entity.input': j({ args: [], kwargs: { order_id: 'A-1187' } }),
        'traceloop.entity.output': j({ status: 'shipped' }),
      },
    },
    {
      traceId: t,
      spanId: s(4),
      parentSpanId: s(1),
      name: 'openai.chat',
      kind: 3,
      scope: 'opentelemetry.instrumentation.openai',
      startMs: 16,
      endMs: 25,
      attributes: {
        'llm.request.type': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Where is order A-1187?',
        'gen_ai.prompt.1.role': 'assistant',
        'gen_ai.prompt.2.role': 'tool',
        'gen_ai.prompt.2.tool_call_id': 'call_tl_1',
        'gen_ai.prompt.2.content': j({ status: 'shipped' }),
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.content': 'Order A-1187 has shipped.',
      },
    },
  ];
}

// Two instrumentations nesting one call: an OpenInference TOOL span around a GenAI execute_tool span.
{
  const t = traceId(113);
  const s = (n: number): string => spanId(113, n);
  fixtures['hand-nested-instrumentations'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'agent',
      startMs: 0,
      endMs: 50,
      attributes: { 'openinference.span.kind': 'AGENT', 'test_case.id': 'nested-instrumentations' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'get_weather',
      scope: 'openinference',
      startMs: 5,
      endMs: 30,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'input.value': j({ city: 'Rome' }),
      },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(2),
      name: 'execute_tool getWeather',
      startMs: 6,
      endMs: 29,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'getWeather',
        'gen_ai.tool.call.id': 'call_n1',
        'gen_ai.tool.call.result': j({ temp: 24 }),
      },
    },
    {
      traceId: t,
      spanId: s(4),
      parentSpanId: s(1),
      name: 'get_weather',
      scope: 'openinference',
      startMs: 31,
      endMs: 40,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'get_weather',
        'input.value': j({ city: 'Milan' }),
      },
    },
  ];
}

// Vercel AI SDK v4 (ai.response.toolCalls in the provider shape) with a request never executed,
// and v6's ai.toolCall.input / .output names.
{
  const t1 = traceId(114);
  const t2 = traceId(115);
  fixtures['hand-vercel-ai-sdk-v4-v6'] = [
    {
      traceId: t1,
      spanId: spanId(114, 1),
      name: 'ai.generateText',
      scope: 'ai',
      startMs: 0,
      endMs: 20,
      attributes: {
        'ai.operationId': 'ai.generateText',
        'ai.telemetry.metadata.testCaseId': 'vercel-v4',
        'ai.prompt': j({ prompt: 'Weather in Rome and Madrid?' }),
      },
    },
    {
      traceId: t1,
      spanId: spanId(114, 2),
      parentSpanId: spanId(114, 1),
      name: 'ai.generateText.doGenerate',
      scope: 'ai',
      startMs: 1,
      endMs: 9,
      attributes: {
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.response.toolCalls': j([
          {
            toolCallType: 'function',
            toolCallId: 'v4_call_1',
            toolName: 'weather',
            args: { city: 'Rome' },
          },
          {
            toolCallType: 'function',
            toolCallId: 'v4_call_2',
            toolName: 'weather',
            args: { city: 'Madrid' },
          },
        ]),
      },
    },
    {
      traceId: t1,
      spanId: spanId(114, 3),
      parentSpanId: spanId(114, 1),
      name: 'ai.toolCall',
      scope: 'ai',
      startMs: 10,
      endMs: 15,
      attributes: {
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': 'weather',
        'ai.toolCall.id': 'v4_call_1',
        'ai.toolCall.args': j({ city: 'Rome' }),
        'ai.toolCall.result': j({ temp: 27 }),
      },
    },
    {
      traceId: t2,
      spanId: spanId(115, 1),
      name: 'ai.streamText',
      scope: 'ai',
      startMs: 0,
      endMs: 20,
      attributes: {
        'ai.operationId': 'ai.streamText',
        'ai.telemetry.metadata.testCaseId': 'vercel-v6',
      },
    },
    {
      traceId: t2,
      spanId: spanId(115, 2),
      parentSpanId: spanId(115, 1),
      name: 'ai.toolCall',
      scope: 'ai',
      startMs: 5,
      endMs: 9,
      attributes: {
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': 'getStockPrice',
        'ai.toolCall.id': 'v6_call_1',
        'ai.toolCall.input': j({ symbol: 'ACME' }),
        'ai.toolCall.output': j({ price: 12.5 }),
      },
    },
  ];
}

// No gen_ai.operation.name on the tool span (older Pydantic AI, hand instrumentation): only
// gen_ai.tool.name marks it. A model span carrying gen_ai.tool.name must not count as a call.
{
  const t = traceId(116);
  const s = (n: number): string => spanId(116, n);
  fixtures['hand-gen-ai-tool-name-fallback'] = [
    {
      traceId: t,
      spanId: s(1),
      name: 'agent run',
      startMs: 0,
      endMs: 30,
      attributes: { 'test_case.id': 'gen-ai-tool-name-fallback' },
    },
    {
      traceId: t,
      spanId: s(2),
      parentSpanId: s(1),
      name: 'chat gpt-4o',
      startMs: 1,
      endMs: 5,
      attributes: { 'gen_ai.request.model': 'gpt-4o', 'gen_ai.tool.name': 'not_a_call' },
    },
    {
      traceId: t,
      spanId: s(3),
      parentSpanId: s(1),
      name: 'tool call',
      startMs: 6,
      endMs: 9,
      attributes: {
        'gen_ai.tool.name': 'get_exchange_rate',
        'gen_ai.tool.call.id': 'fx_1',
        'gen_ai.tool.call.arguments': j({ from: 'EUR', to: 'USD' }),
        'gen_ai.tool.call.result': '1.08',
      },
    },
  ];
}

for (const [name, spans] of Object.entries(fixtures)) {
  writeFileSync(
    new URL(`${name}.otlp.json`, OUT),
    `${JSON.stringify(otlpRequest(spans), null, 2)}\n`,
  );
}
console.log(`wrote ${Object.keys(fixtures).length} hand-built fixtures`);

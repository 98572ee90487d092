import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import type { AttributeValue, SpanDigest } from '../ingest/span-digest.js';
import { extractToolCalls } from './extract-tool-calls.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import { EXTRACTORS } from './extractors/index.js';
import { groupSpansByTrace } from './group-spans-by-trace.js';

/** The registry with every signal removed: every extractor asked about every span. */
const UNGATED: readonly ToolCallExtractor[] = EXTRACTORS.map(
  ({ signal: _signal, ...rest }) => rest,
);

const j = (v: unknown) => JSON.stringify(v);
const TOOL = fc.constantFrom('get_weather', 'functions.lookup', 'book', 'search');
const ATTRIBUTES: Record<string, fc.Arbitrary<AttributeValue>> = {
  'gen_ai.operation.name': fc.constantFrom('execute_tool', 'chat', 'invoke_agent'),
  'gen_ai.tool.name': TOOL,
  'gen_ai.tool.call.id': fc.constantFrom('c1', 'c2'),
  'gen_ai.tool.call.arguments': fc.constantFrom('{"q":1}', 'plain'),
  'gen_ai.request.model': fc.constant('gpt-4o'),
  'gen_ai.system': fc.constantFrom('strands-agents', 'openai'),
  'gen_ai.output.messages': TOOL.map(name =>
    j([{ role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name, arguments: {} }] }]),
  ),
  'gen_ai.input.messages': TOOL.map(name =>
    j([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c2', name }] },
    ]),
  ),
  'mcp.method.name': fc.constantFrom('tools/call', 'tools/list'),
  'mastra.span.type': fc.constantFrom('tool_call', 'mcp_tool_call', 'agent_run'),
  tool_arguments: fc.constant('{"a":1}'),
  'logfire.msg': fc.constantFrom('running tool: x', 'chat'),
  'logfire.msg_template': fc.constantFrom('Function: {name}', 'other'),
  name: TOOL,
  'langsmith.span.kind': fc.constantFrom('tool', 'llm', 'chain'),
  'gen_ai.completion': TOOL.map(name => j({ tool_calls: [{ name, args: {} }] })),
  'gen_ai.completion.0.tool_calls.0.name': TOOL,
  'gen_ai.completion.0.tool_calls.0.id': fc.constant('c3'),
  'ai.operationId': fc.constantFrom('ai.toolCall', 'ai.generateText'),
  'ai.toolCall.name': TOOL,
  'ai.response.toolCalls': TOOL.map(toolName => j([{ toolCallId: 'c4', toolName, input: '{}' }])),
  'ai.prompt.messages': fc.constant(j([{ role: 'user', content: 'hi' }])),
  'openinference.span.kind': fc.constantFrom('TOOL', 'LLM', 'CHAIN'),
  'tool.name': TOOL,
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': TOOL,
  'traceloop.span.kind': fc.constantFrom('tool', 'workflow'),
  'traceloop.entity.name': TOOL,
  'gcp.vertex.agent.tool_call_args': fc.constant('{"x":1}'),
  'gcp.vertex.agent.llm_response': TOOL.map(name =>
    j({ content: { parts: [{ function_call: { name, args: {} } }] } }),
  ),
  events: TOOL.map(name =>
    j([{ 'event.name': 'gen_ai.choice', message: { tool_calls: [{ function: { name } }] } }]),
  ),
};

const span: fc.Arbitrary<SpanDigest> = fc
  .record({
    n: fc.nat({ max: 5 }),
    parent: fc.nat({ max: 5 }),
    name: fc.constantFrom(
      'chat',
      'running tool',
      'ai.toolCall',
      'Function: lookup',
      'execute_tool get_weather',
      'tools/call search',
      'lookup.tool',
    ),
    scopeName: fc.constantFrom(
      '',
      'gcp.vertex.agent',
      'strands.telemetry',
      'semantic_kernel.functions',
      'ai',
    ),
    attributes: fc.record(ATTRIBUTES, { requiredKeys: [] }),
    events: fc.array(
      fc.record({
        name: fc.constantFrom(
          'gen_ai.choice',
          'gen_ai.tool.message',
          'gen_ai.client.inference.operation.details',
          'other',
        ),
        timeUnixNano: fc.constant(5n),
        attributes: fc.record(
          {
            message: ATTRIBUTES['events']!,
            'gen_ai.output.messages': ATTRIBUTES['gen_ai.output.messages']!,
            id: fc.constant('c1'),
            content: fc.constant('{"r":1}'),
          },
          { requiredKeys: [] },
        ),
      }),
      { maxLength: 2 },
    ),
    statusCode: fc.constantFrom(0, 2),
  })
  .map(
    ({ n, parent, ...rest }) =>
      ({
        traceId: 'a'.repeat(32),
        spanId: n.toString(16).padStart(16, '0'),
        parentSpanId: parent === n ? '' : parent.toString(16).padStart(16, '0'),
        kind: 1,
        startTimeUnixNano: BigInt(n),
        endTimeUnixNano: BigInt(n + 1),
        statusMessage: '',
        serviceName: 'svc',
        ...rest,
      }) as SpanDigest,
  );

describe('extractor signals: asking only the extractors a span may concern changes nothing', () => {
  it('finds the same calls as asking every extractor, on every fixture trace', async () => {
    const { spans } = await readTraceFiles([
      new URL('../../test/fixtures/otlp/', import.meta.url).pathname,
    ]);
    const traces = [...groupSpansByTrace(spans).values()];
    expect(traces.length).toBeGreaterThan(15);
    for (const trace of traces)
      expect(extractToolCalls(trace, { extractors: EXTRACTORS })).toEqual(
        extractToolCalls(trace, { extractors: UNGATED }),
      );
  });

  it('finds the same calls on random spans mixing every convention’s keys, names, scopes and events', () => {
    fc.assert(
      fc.property(fc.array(span, { minLength: 1, maxLength: 6 }), spans => {
        expect(extractToolCalls(spans, { extractors: EXTRACTORS })).toEqual(
          extractToolCalls(spans, { extractors: UNGATED }),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('asks an extractor with no signal about every span, and past 31 extractors too', () => {
    const asked: string[] = [];
    const probe = (id: string): ToolCallExtractor => ({
      id,
      executed: span => (asked.push(`${id}:${span.name}`), undefined),
    });
    const many = [
      ...Array.from({ length: 33 }, (_, i) => ({ ...probe(`x${i}`), signal: { keys: ['never'] } })),
      probe('unsignalled'),
    ];
    const [s] = fc.sample(span, { seed: 4, numRuns: 1 });
    extractToolCalls([{ ...s!, name: 'n' }], { extractors: many });
    expect(asked).toEqual(['x31:n', 'x32:n', 'unsignalled:n']);
  });
});

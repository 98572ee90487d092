/**
 * Strands Agents: default mode (events gen_ai.tool.message / gen_ai.choice) and latest mode.
 * HAND-BUILT: written from the sources cited in ../shared/reference/otel-tool-conventions.md §2.
 */
import { spanId, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { j } from './json.js';

const t1 = traceId(106);
const t2 = traceId(107);
const a = { 'gen_ai.system': 'strands-agents' };
const spans: SpanInput[] = [
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

/** The `hand-strands` fixture. */
export const fixture = { name: 'hand-strands', spans };

import { spanId, traceId, type SpanInput } from './otlp-json-builder.js';

/** JSON text to put in a trace as it is: an object this deep or this odd cannot be stringified. */
export class JsonText {
  constructor(readonly text: string) {}
}

const asText = (value: unknown): string =>
  value instanceof JsonText ? value.text : JSON.stringify(value);

/**
 * A trace whose model was offered `tool` with `schema` (`gen_ai.tool.definitions` on a chat span)
 * and which called it once with each of `args` (`execute_tool` spans, call ids `call_0`…), as
 * OTel GenAI instrumentations write them. A {@link JsonText} schema or argument is spliced in as
 * it is.
 */
export function toolSchemaTrace(
  n: number,
  schema: unknown,
  args: unknown[],
  options: { tool?: string; service?: string } = {},
): SpanInput[] {
  const t = traceId(n);
  const tool = options.tool ?? 'convert';
  const service = options.service ?? 'test-service';
  return [
    {
      traceId: t,
      spanId: spanId(n, 1),
      name: 'invoke_agent',
      startMs: 0,
      endMs: 100,
      service,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    },
    {
      traceId: t,
      spanId: spanId(n, 2),
      parentSpanId: spanId(n, 1),
      name: 'chat m',
      startMs: 1,
      endMs: 2,
      service,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.tool.definitions': `[{"type":"function","name":${JSON.stringify(tool)},"parameters":${asText(schema)}}]`,
      },
    },
    ...args.map((a, i) => ({
      traceId: t,
      spanId: spanId(n, 3 + i),
      parentSpanId: spanId(n, 1),
      name: `execute_tool ${tool}`,
      startMs: 10 + i * 10,
      endMs: 15 + i * 10,
      service,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': `call_${i}`,
        'gen_ai.tool.call.arguments': asText(a),
      },
    })),
  ];
}

/** `count` properties, each a `$ref` to one definition of `width` string properties. */
export function refFanOut(count: number, width: number): Record<string, unknown> {
  const wide: Record<string, unknown> = {};
  for (let i = 0; i < width; i++) wide[`f${i}`] = { type: 'string' };
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`r${i}`] = { $ref: '#/definitions/wide' };
  return {
    type: 'object',
    definitions: { wide: { type: 'object', properties: wide } },
    properties,
  };
}

/**
 * A chain of `levels` subschemas, each an `anyOf` of two `$ref`s to the one below, named by anchors
 * (`$anchor`; draft-07's `$id: "#name"`) and held inside `examples` under an unknown keyword: data
 * to spanscore's reading, schemas to the validator's walk for ids. Validating `{"a": 1}` against it
 * tries 2^levels branches (1.3 KB at 20 levels).
 */
export function anchorChainInData(
  levels: number,
  draft: '07' | '2020-12',
): Record<string, unknown> {
  const named = (k: number) => (draft === '2020-12' ? { $anchor: `s${k}` } : { $id: `#s${k}` });
  const chain: Record<string, unknown> = { s0: { ...named(0), type: 'string' } };
  for (let k = 1; k <= levels; k++)
    chain[`s${k}`] = { ...named(k), anyOf: [{ $ref: `#s${k - 1}` }, { $ref: `#s${k - 1}` }] };
  return {
    ...(draft === '2020-12' && { $schema: 'https://json-schema.org/draft/2020-12/schema' }),
    type: 'object',
    properties: { a: { $ref: `#s${levels}` } },
    x: { examples: chain },
  };
}

/** A schema of `items` nested `depth` deep, as text (27 KB at 3,000). */
export const deepSchemaText = (depth: number): JsonText =>
  new JsonText(`${'{"items":'.repeat(depth)}{"type":"string"}${'}'.repeat(depth)}`);

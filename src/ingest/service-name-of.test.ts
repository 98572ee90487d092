import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from './decode-otlp-json.js';
import { decodeOtlpJsonLogs } from './decode-otlp-logs-json.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';
import { serviceNameOf, UNKNOWN_SERVICE } from './service-name-of.js';

describe('serviceNameOf', () => {
  it.each([
    [undefined, 'unknown_service'],
    ['', 'unknown_service'],
    ['checkout-agent', 'checkout-agent'],
    // An SDK's own default names the process: kept as the sender set it.
    ['unknown_service:node', 'unknown_service:node'],
    ['unknown_service', 'unknown_service'],
  ])('%j → %s', (value, expected) => {
    expect(serviceNameOf(value)).toBe(expected);
  });

  it("is OpenTelemetry's name for a service that set none", () => {
    expect(UNKNOWN_SERVICE).toBe('unknown_service');
  });
});

const SPAN = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  name: 'execute_tool get_weather',
  startTimeUnixNano: '1000',
  endTimeUnixNano: '2000',
};

const stringAttribute = (key: string, value: string) => ({ key, value: { stringValue: value } });

describe('the service name the decoders give a span', () => {
  it.each([
    ['no resource', {}, 'unknown_service'],
    [
      'a resource without service.name',
      { resource: { attributes: [stringAttribute('service.version', '1.0')] } },
      'unknown_service',
    ],
    [
      'an empty service.name',
      { resource: { attributes: [stringAttribute('service.name', '')] } },
      'unknown_service',
    ],
    [
      'a service.name that is not a string',
      { resource: { attributes: [{ key: 'service.name', value: { intValue: '7' } }] } },
      'unknown_service',
    ],
    [
      "an SDK's unknown_service:node",
      { resource: { attributes: [stringAttribute('service.name', 'unknown_service:node')] } },
      'unknown_service:node',
    ],
  ])('OTLP/JSON with %s: %s', (_what, resource, expected) => {
    const decoded = decodeOtlpJson({
      resourceSpans: [{ ...resource, scopeSpans: [{ scope: { name: 's' }, spans: [SPAN] }] }],
    });
    expect(decoded.spans.map(s => s.serviceName)).toEqual([expected]);
  });

  it('OTLP/JSON logs: a GenAI event of a resource without service.name', () => {
    const decoded = decodeOtlpJsonLogs({
      resourceLogs: [
        {
          scopeLogs: [
            {
              scope: { name: 's' },
              logRecords: [
                {
                  timeUnixNano: '1500',
                  eventName: 'gen_ai.tool.message',
                  traceId: SPAN.traceId,
                  spanId: SPAN.spanId,
                  body: { stringValue: '{}' },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(decoded.spans.map(s => s.serviceName)).toEqual(['unknown_service']);
  });

  // ResourceSpans{scope_spans{spans[span]}, resource?}, by hand.
  const len = (bytes: number[]) => [bytes.length, ...bytes];
  const str = (field: number, text: string) => [(field << 3) | 2, ...len([...Buffer.from(text)])];
  const protobufRequest = (resourceAttributes: number[][] | undefined) => {
    const span = [
      0x0a,
      ...len(new Array<number>(16).fill(1)),
      0x12,
      ...len(new Array<number>(8).fill(2)),
      ...str(5, 'execute_tool get_weather'),
    ];
    const scopeSpans = [0x12, ...len(span)];
    const resource =
      resourceAttributes === undefined
        ? []
        : [0x0a, ...len(resourceAttributes.flatMap(kv => [0x0a, ...len(kv)]))];
    const resourceSpans = [...resource, 0x12, ...len(scopeSpans)];
    return Uint8Array.from([0x0a, ...len(resourceSpans)]);
  };
  const keyValue = (key: string, value: string) => [...str(1, key), 0x12, ...len(str(1, value))];

  it.each([
    ['no resource', undefined, 'unknown_service'],
    ['a resource without service.name', [keyValue('service.version', '1.0')], 'unknown_service'],
    ['an empty service.name', [keyValue('service.name', '')], 'unknown_service'],
    [
      "an SDK's unknown_service:node",
      [keyValue('service.name', 'unknown_service:node')],
      'unknown_service:node',
    ],
    ['a named service', [keyValue('service.name', 'travel-agent')], 'travel-agent'],
  ])('OTLP/protobuf with %s: %s', (_what, attributes, expected) => {
    const decoded = decodeOtlpProtobuf(protobufRequest(attributes));
    expect(decoded.rejected).toEqual([]);
    expect(decoded.spans.map(s => s.serviceName)).toEqual([expected]);
  });
});

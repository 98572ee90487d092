import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from './decode-otlp-json.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';
import { MAX_RESOURCE_TEXT_CHARS, resourceText } from './resource-text.js';

const MAX = MAX_RESOURCE_TEXT_CHARS;

describe('resourceText', () => {
  it.each([
    ['short', 'checkout-agent', 'checkout-agent'],
    ['at the bound', 'a'.repeat(MAX), 'a'.repeat(MAX)],
    ['past it', 'a'.repeat(MAX + 1), 'a'.repeat(MAX)],
    // A pair across the cut goes whole: a lone half would be written to Redis as U+FFFD.
    ['a pair across the cut', `${'a'.repeat(MAX - 1)}😀`, 'a'.repeat(MAX - 1)],
    ['a pair before it', `${'a'.repeat(MAX - 2)}😀b`, `${'a'.repeat(MAX - 2)}😀`],
    // A lone half sent (OTLP/JSON's "\ud800") is U+FFFD, as Redis would store it.
    ['a lone high half', 'svc-\ud800-x', 'svc-\ufffd-x'],
    ['a lone low half, a pair kept', '\udc00😀\ud83d', '\ufffd😀\ufffd'],
  ])('%s', (_what, value, expected) => {
    expect(resourceText(value)).toBe(expected);
  });
});

describe("the decoders cut a span's resource and scope texts", () => {
  const long = (c: string) => c.repeat(100_000);
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': long('s'),
      'service.version': long('v'),
      'deployment.environment.name': long('e'),
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  provider.getTracer(long('c')).startSpan('invoke_agent').end();
  const sent = exporter.getFinishedSpans();

  it.each([
    [
      'OTLP/JSON',
      () =>
        decodeOtlpJson(
          JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(sent)!).toString()),
        ),
    ],
    ['OTLP/protobuf', () => decodeOtlpProtobuf(ProtobufTraceSerializer.serializeRequest(sent)!)],
  ])('%s', (_what, decode) => {
    const [span] = decode().spans;
    expect(span).toMatchObject({
      serviceName: 's'.repeat(MAX),
      serviceVersion: 'v'.repeat(MAX),
      deploymentEnvironment: 'e'.repeat(MAX),
      scopeName: 'c'.repeat(MAX),
    });
  });
});

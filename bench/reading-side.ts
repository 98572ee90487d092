/**
 * One decoder of the reading bench, in a worker thread of its own (`isolated-side.ts`), decoding
 * the payloads the bench hands it: `ours` (`decodeOtlpProtobuf`, bytes to span digests, whose
 * attributes are decoded when first read), `ours-read` (the same, then every attribute of every
 * span read, so all of them decoded) or `protobufjs` (the static code generated for
 * `@opentelemetry/otlp-transformer` 0.216, bytes to message objects, every field decoded). Its
 * rates are requests per second.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { decodeOtlpProtobuf } from '../src/ingest/decode-otlp-protobuf.js';
import { serveSide } from './isolated-side.js';

const { side, payloads } = workerData as {
  side: 'ours' | 'ours-read' | 'protobufjs';
  payloads: Uint8Array[];
};
const buffers = payloads.map(p => Buffer.from(p.buffer, p.byteOffset, p.byteLength));

function decoder(): (bytes: Buffer) => unknown {
  if (side === 'ours') return decodeOtlpProtobuf;
  if (side === 'ours-read')
    return bytes => {
      let values = 0;
      for (const span of decodeOtlpProtobuf(bytes).spans)
        for (const key in span.attributes) if (span.attributes[key] !== undefined) values++;
      return values;
    };
  const root = createRequire(import.meta.url)(
    fileURLToPath(
      new URL(
        '../node_modules/otlp-transformer-protobufjs/build/src/generated/root.js',
        import.meta.url,
      ),
    ),
  ) as {
    opentelemetry: {
      proto: {
        collector: {
          trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): unknown } } };
        };
      };
    };
  };
  const message = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
  return bytes => message.decode(bytes);
}

const decode = decoder();
await serveSide(parentPort!, buffers.length, () => {
  for (const bytes of buffers) decode(bytes);
});

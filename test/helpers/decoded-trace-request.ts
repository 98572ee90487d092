import { createRequire } from 'node:module';

// protobufjs' static code for the OTLP protos (as otlp-transformer 0.216 generated it): an
// independent decoder of the whole message, defaults included.
const root = createRequire(import.meta.url)(
  'otlp-transformer-protobufjs/build/src/generated/root.js',
) as {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(b: Uint8Array): unknown;
              toObject(m: unknown, o: object): unknown;
            };
          };
        };
      };
    };
  };
};
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/**
 * An OTLP `ExportTraceServiceRequest` in protobuf, decoded by protobufjs (not by our decoder) into
 * a plain object, defaults included, 64-bit integers and bytes as strings: two encodings of the
 * same message compare equal.
 */
export function decodedTraceRequest(bytes: Uint8Array): unknown {
  return Request.toObject(Request.decode(bytes), {
    longs: String,
    enums: Number,
    bytes: String,
    defaults: true,
    arrays: true,
  });
}

/**
 * Encodes OTLP/HTTP response bodies in the request's own content type, as the OTLP specification
 * requires: an `ExportTraceServiceResponse` or `ExportLogsServiceResponse` (with `partial_success`
 * when items were rejected) for 200, a `google.rpc.Status` for errors.
 */

/** What a 200 reports: how many items (spans, log records) were rejected, and why. */
export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

/**
 * `ExportTraceServiceResponse` (`signal` traces) or `ExportLogsServiceResponse` (logs): empty on
 * full success (the spec: partial_success MUST be unset). Both partial successes hold the count
 * in field 1 and the message in field 2; only their JSON names differ.
 */
export function encodeExportResponse(
  partial: PartialSuccess | undefined,
  format: 'json' | 'protobuf',
  signal: 'traces' | 'logs' = 'traces',
): Buffer {
  if (format === 'json') {
    const body = partial
      ? {
          partialSuccess: {
            [signal === 'traces' ? 'rejectedSpans' : 'rejectedLogRecords']: String(
              partial.rejected,
            ),
            errorMessage: partial.errorMessage,
          },
        }
      : {};
    return Buffer.from(JSON.stringify(body));
  }
  if (!partial) return Buffer.alloc(0);
  // Export{Trace,Logs}PartialSuccess { int64 rejected_{spans,log_records} = 1; string
  // error_message = 2; } in field 1.
  const inner = Buffer.concat([
    field(1, varint(partial.rejected)),
    lengthDelimited(2, Buffer.from(partial.errorMessage)),
  ]);
  return lengthDelimited(1, inner);
}

/** `google.rpc.Status { int32 code = 1; string message = 2; }` for 4xx/5xx responses. */
export function encodeStatus(
  grpcCode: number,
  message: string,
  format: 'json' | 'protobuf',
): Buffer {
  if (format === 'json') return Buffer.from(JSON.stringify({ code: grpcCode, message }));
  return Buffer.concat([field(1, varint(grpcCode)), lengthDelimited(2, Buffer.from(message))]);
}

function field(number: number, value: Buffer): Buffer {
  return Buffer.concat([varint(number << 3), value]); // wire type 0 (varint)
}

function lengthDelimited(number: number, value: Buffer): Buffer {
  return Buffer.concat([varint((number << 3) | 2), varint(value.length), value]);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = n;
  while (v > 0x7f) {
    bytes.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

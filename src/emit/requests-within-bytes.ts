/** One export request: its encoded body and how many spans it carries. */
export interface EncodedRequest {
  bytes: Uint8Array;
  spans: number;
}

/**
 * The requests that carry `spans`, each at most `maxBytes` once encoded: `encode` runs once on
 * them all, and only a request past the bound (rare: evaluation spans are bounded, about 55 KB at
 * most in protobuf) is split, into as many parts as its size asks, each encoded and split again
 * while still past it. A single span past the bound goes alone, whole. Spans keep their order. The
 * common case costs one length comparison over the encoding the exporter makes anyway, where
 * sizing each span as it joins a batch cost 3,000 instructions a scored span (3.4% of the hot
 * path).
 */
export function requestsWithinBytes<T>(
  spans: readonly T[],
  encode: (spans: readonly T[]) => Uint8Array,
  maxBytes: number,
): EncodedRequest[] {
  const requests: EncodedRequest[] = [];
  const todo: Array<readonly T[]> = [spans];
  while (todo.length > 0) {
    const part = todo.pop()!;
    const bytes = encode(part);
    if (bytes.length <= maxBytes || part.length === 1) {
      requests.push({ bytes, spans: part.length });
      continue;
    }
    // Aimed a tenth under the bound, so that a piece a little larger than the mean is not split again.
    const pieces = Math.min(part.length, Math.ceil(bytes.length / (0.9 * maxBytes)));
    const size = Math.ceil(part.length / pieces);
    const starts: number[] = [];
    for (let start = 0; start < part.length; start += size) starts.push(start);
    // Last piece first: the stack hands them back in order.
    for (let i = starts.length - 1; i >= 0; i--)
      todo.push(part.slice(starts[i], starts[i]! + size));
  }
  return requests;
}

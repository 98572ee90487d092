import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import { decodeSpanDigest, encodeSpanDigest } from './span-digest-codec.js';

describe('span digest codec', () => {
  it('round-trips every fixture span exactly, 64-bit times included', async () => {
    const { spans } = await readTraceFiles([
      new URL('../../test/fixtures/otlp/', import.meta.url).pathname,
    ]);
    expect(spans.length).toBeGreaterThan(50);
    for (const span of spans) expect(decodeSpanDigest(encodeSpanDigest(span))).toEqual(span);
    const max = { ...spans[0]!, startTimeUnixNano: 2n ** 64n - 1n };
    expect(decodeSpanDigest(encodeSpanDigest(max)).startTimeUnixNano).toBe(2n ** 64n - 1n);
  });
});

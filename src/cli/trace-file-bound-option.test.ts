import { describe, expect, it } from 'vitest';
import { traceFileBytes } from './trace-file-bound-option.js';

describe('traceFileBytes', () => {
  it('gives whole bytes of the MiB given, and at least one byte for a positive MiB under a byte', () => {
    expect(traceFileBytes(1)).toBe(1_048_576);
    expect(traceFileBytes(0.5)).toBe(524_288);
    // 1e-7 MiB is about a tenth of a byte: a bound of 0 refused every file.
    expect(traceFileBytes(1e-7)).toBe(1);
  });
});

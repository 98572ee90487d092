import { describe, expect, it } from 'vitest';
import { sessionPartCut } from './session-part-cut.js';

const bounds = { maxTraces: 50, maxAgeMs: 86_400_000, maxSessionBytes: 1_048_576 };

describe('sessionPartCut', () => {
  it('names the bound a part was cut at, and what becomes of later turns', () => {
    expect(sessionPartCut('max_traces', bounds)).toEqual({
      code: 'max_traces',
      reason:
        'cut at 50 traces (sessions.maxTraces): scored as it stood; a later turn opens its next part',
    });
    expect(sessionPartCut('max_bytes', bounds).reason).toBe(
      'cut at 1048576 bytes (sessions.maxSessionBytes): scored as it stood; a later turn opens its next part',
    );
    expect(sessionPartCut('evicted', bounds).code).toBe('evicted');
  });

  it.each([
    [86_400_000, '24 hours'],
    [600_000, '10 minutes'],
    [2_500, '2.5 seconds'],
  ])('says an age of %i ms as %s', (maxAgeMs, said) => {
    expect(sessionPartCut('max_age', { ...bounds, maxAgeMs }).reason).toBe(
      `cut ${said} after its first trace (sessions.maxAgeMs): scored as it stood; a later turn opens its next part`,
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { FailureSignatureRow } from '../results/summarize-failures.js';
import { newFailureSignatures } from './new-failure-signatures.js';

const row = (tool: string, signature: string, count: number): FailureSignatureRow => ({
  service: 'shop',
  tool,
  signature,
  count,
  errors: count,
  refused: 0,
  firstSeenUnixMs: 1,
  lastSeenUnixMs: 2,
  versions: ['1.3.0'],
  exampleTraceIds: ['t'],
});

describe('newFailureSignatures', () => {
  it('names the candidate’s signatures the baseline had not, per service and tool', () => {
    const baseline = {
      signatures: [row('get_weather', 'timeout after <n>ms', 9), row('search', 'rate limited', 2)],
      other: [{ service: 'shop', tool: 'search', count: 4, errors: 4, refused: 0 }],
    };
    const candidate = {
      signatures: [
        row('get_weather', 'no station <n>', 7),
        row('get_weather', 'timeout after <n>ms', 3),
        row('search', 'index <str> missing', 2),
        // The same text on another tool is another signature.
        row('book', 'rate limited', 1),
      ],
    };
    expect(
      newFailureSignatures(baseline, candidate).map(s => [
        s.tool,
        s.signature,
        s.count,
        s.baselineOther,
      ]),
    ).toEqual([
      ['get_weather', 'no station <n>', 7, 0],
      // The baseline counted 4 search failures as other: this one may have been among them.
      ['search', 'index <str> missing', 2, 4],
      ['book', 'rate limited', 1, 0],
    ]);
  });

  it('finds none when the candidate fails as the baseline did, or not at all', () => {
    const signatures = [row('get_weather', 'boom', 1)];
    expect(newFailureSignatures({ signatures, other: [] }, { signatures })).toEqual([]);
    expect(newFailureSignatures({ signatures, other: [] }, { signatures: [] })).toEqual([]);
  });
});

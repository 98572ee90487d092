import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { normalizeTrace } from '../normalize/normalize-trace.js';
import { otlpRequest, spanId } from '../../test/helpers/otlp-json-builder.js';
import { isSampled, resolveRules } from './production-rules.js';

const trace = (service: string, root: string, attributes: Record<string, string> = {}) => {
  const t = 'b'.repeat(18) + '00000000000000';
  return normalizeTrace(
    t,
    decodeOtlpJson(
      otlpRequest([
        { traceId: t, spanId: spanId(1, 1), name: root, service, startMs: 0, endMs: 1, attributes },
      ]),
    ).spans,
  );
};

describe('production rules', () => {
  const [rule] = resolveRules([
    {
      name: 'checkout',
      match: {
        service: 'checkout-*',
        rootSpanName: 'invoke_agent *',
        attributes: { 'gen_ai.agent.name': 'cart' },
      },
      scorers: [{ name: 'tool_trajectory', forbiddenTools: ['delete_user'] }],
    },
  ]);

  it('matches the root span by service glob, name glob and attribute equality', () => {
    expect(
      rule!.matches(trace('checkout-eu', 'invoke_agent cart', { 'gen_ai.agent.name': 'cart' })),
    ).toBe(true);
    expect(
      rule!.matches(trace('search-eu', 'invoke_agent cart', { 'gen_ai.agent.name': 'cart' })),
    ).toBe(false);
    expect(
      rule!.matches(trace('checkout-eu', 'chat gpt-4o', { 'gen_ai.agent.name': 'cart' })),
    ).toBe(false);
    expect(
      rule!.matches(trace('checkout-eu', 'invoke_agent cart', { 'gen_ai.agent.name': 'other' })),
    ).toBe(false);
    expect(rule!.scorers[0]!.options).toMatchObject({ forbiddenTools: ['delete_user'] });
  });

  it("samples deterministically by the trace id's random bits, nested by rate", () => {
    const ids = Array.from(
      { length: 2000 },
      (_, i) =>
        `${'a'.repeat(18)}${((i * 2654435761) % 2 ** 32).toString(16).padStart(8, '0')}${'0'.repeat(6)}`,
    );
    const at = (rate: number) => new Set(ids.filter(id => isSampled(id, rate)));
    const tenth = at(0.1);
    const half = at(0.5);
    expect(tenth.size).toBeGreaterThan(120);
    expect(tenth.size).toBeLessThan(280);
    expect([...tenth].every(id => half.has(id))).toBe(true);
    expect(at(0.1)).toEqual(tenth);
    expect(at(0).size).toBe(0);
    expect(at(1).size).toBe(2000);
  });

  it('refuses unknown scorers and bad options at start-up, naming the rule', () => {
    expect(() => resolveRules([{ name: 'x', scorers: ['nope'] }])).toThrow(
      'invalid configuration, rules[0].scorers[0]: unknown scorer "nope"',
    );
    expect(() =>
      resolveRules([{ name: 'x', scorers: [{ name: 'tool_trajectory', match: 'maybe' }] }]),
    ).toThrow(/rules\[0\]\.scorers\[0\]: scorer tool_trajectory: option "match"/);
    expect(() => resolveRules([{ name: 'x', sampleRate: 2, scorers: ['contains'] }])).toThrow(
      /rules\[0\]\.sampleRate/,
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactRecordLine, decodeCompactRecord } from '../results/compact-run-record.js';
import type { RunRecord, StoredResult, StoredToolCall } from '../results/stored-result.js';
import { EntryResults, passResultLines, wholeResultLine } from './result-lines.js';

type Result = Omit<StoredResult, 'id'>;

// Hostile text: separators the layouts use, JSON look-alikes, lone surrogates, prototype names.
const hostile = fc.constantFrom(
  '',
  '\n',
  '\t',
  '@1-0 0 p',
  '~{}',
  '={}',
  '-',
  '{"a":1,"a":2}',
  '[1.0]',
  '[9007199254740993]',
  '{ "a": 1 }',
  '[1e400]',
  '[-0]',
  '__proto__',
  '{"__proto__":{"x":1}}',
  '\ud800',
  '["\ud800"]',
  '["\\ud800"]',
  'E',
  '{}',
  '[]',
  'null',
);
const text = fc.oneof(hostile, fc.string({ unit: 'binary' }), fc.string());
const num = fc.oneof(
  fc.double(),
  fc.constantFrom(-0, 1e308, Number.MAX_SAFE_INTEGER + 2, 0.1, NaN, Infinity, -Infinity),
  fc.integer(),
);
const names = fc.array(text, { maxLength: 5 });
const orNull = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null });

const resultArb: fc.Arbitrary<Result> = fc
  .record({
    timeUnixMs: num,
    traceId: text,
    targetKind: fc.constantFrom('test_case', 'rule'),
    suite: text,
    testCaseId: text,
    scorer: text,
    scorerKind: fc.constantFrom('deterministic', 'llm_judge'),
    scorerVersion: text,
    phase: fc.constantFrom('all', 'deterministic', 'judge'),
    status: fc.constantFrom('scored', 'skipped', 'failed'),
    score: orNull(num),
    label: fc.constantFrom('pass', 'fail', null),
    reason: text,
    expectedTools: orNull(names),
    toolSequence: names,
    toolsUsed: names,
    serviceName: text,
    serviceVersion: orNull(text),
    deploymentEnvironment: orNull(text),
    agentName: orNull(text),
    agentPair: fc.option(fc.tuple(names, names), { nil: undefined }),
    judgeCostUsd: orNull(num),
    sessionId: fc.option(text, { nil: undefined }),
    sessionPart: fc.option(num, { nil: undefined }),
    failingTurn: fc.option(num, { nil: undefined }),
  })
  .map(({ agentPair, sessionId, sessionPart, failingTurn, judgeCostUsd, ...r }) => ({
    ...r,
    ...(agentPair && { agents: agentPair[0], failingAgents: agentPair[1] }),
    judgeCostUsd,
    ...(sessionId !== undefined && { sessionId }),
    ...(sessionPart !== undefined && { sessionPart }),
    ...(failingTurn !== undefined && { failingTurn }),
  })) as fc.Arbitrary<Result>;

/** The optional fields at a result's end, in the order the scorers build them. */
const TRAILING_KEYS = [
  'agents',
  'failingAgents',
  'judgeCostUsd',
  'sessionId',
  'sessionPart',
  'failingTurn',
];

/**
 * `r` with its trailing fields moved to the end in the order a built result has them: a field
 * picked from another result that `r` lacked lands last when set, which no scorer writes.
 */
function inBuiltOrder(r: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(r)) if (!TRAILING_KEYS.includes(k)) out[k] = r[k];
  for (const k of TRAILING_KEYS) if (k in r) out[k] = r[k];
  return out;
}

/**
 * A pass: results of one trace, most fields shared (the case layout 2's difference lines are
 * for), some results another arbitrary one, so that any field may differ or be absent.
 */
const passArb = fc
  .tuple(
    resultArb,
    fc.array(fc.tuple(resultArb, fc.array(fc.boolean(), { maxLength: 27 })), {
      maxLength: 5,
    }),
  )
  .map(([base, others]) => [
    base,
    ...others.map(([other, pick]) => {
      const keys = Object.keys(other);
      const out: Record<string, unknown> = { ...base };
      keys.forEach((k, i) => {
        if (pick[i]) out[k] = (other as unknown as Record<string, unknown>)[k];
      });
      // Optional fields the other lacks: sometimes absent here too.
      for (const k of ['agents', 'sessionId', 'sessionPart', 'failingTurn'])
        if (!(k in other) && pick[0]) delete out[k];
      if (!('agents' in out)) delete out.failingAgents;
      else out.failingAgents ??= [];
      return inBuiltOrder(out) as unknown as Result;
    }),
  ]);

/** What layout 1 gives back: the JSON of each result. */
const asLayout1 = (r: unknown): unknown => JSON.parse(JSON.stringify(r)) as unknown;

describe('layout 2 lines read back as layout 1 (property)', () => {
  it('a pass of results, and several passes in one entry, read back exactly, key order too', () => {
    fc.assert(
      fc.property(fc.array(passArb, { minLength: 1, maxLength: 3 }), passes => {
        const lines = passes.flatMap(p => passResultLines(p));
        // The stream holds an entry's lines joined by newlines: no line may contain one.
        for (const l of lines) expect(l).not.toContain('\n');
        const entry = new EntryResults(lines.join('\n').split('\n'));
        const all = passes.flat();
        expect(entry.length).toBe(all.length);
        all.forEach((r, i) => {
          expect(JSON.stringify(entry.at(i))).toBe(wholeResultLine(r));
        });
      }),
      { numRuns: 400 },
    );
  });
});

const callArb: fc.Arbitrary<StoredToolCall> = fc
  .record(
    {
      name: text,
      rawName: text,
      source: fc.constantFrom('executed', 'requested'),
      status: fc.constantFrom('ok', 'error'),
      outcome: fc.constantFrom('ok', 'error', 'refused'),
      error: orNull(text),
      argumentProblems: orNull(names),
      offered: fc.constantFrom(true, false, null),
      durationMs: num,
      repeated: fc.constant(true),
      turn: num,
      spanId: text,
      convention: text,
      agent: text,
      arguments: text,
      result: text,
    },
    { requiredKeys: ['name', 'rawName', 'source', 'status', 'error', 'spanId', 'convention'] },
  )
  .map(c => c as StoredToolCall);

const recordArb = fc
  .record(
    {
      traceId: text,
      state: fc.constantFrom('pending', 'scored', 'not_scored', 'failed', 'expired'),
      reason: orNull(text),
      testCaseId: orNull(text),
      testCaseIdAttribute: orNull(fc.oneof(text, fc.constant('spanscore.test_case.id'))),
      serviceName: text,
      serviceVersion: orNull(text),
      deploymentEnvironment: orNull(text),
      diagnostics: fc.array(fc.record({ code: text, message: text }), { maxLength: 2 }),
      matched: names,
      awaitingJudge: names,
      updatedAtUnixMs: num,
      toolCalls: fc.array(callArb, { maxLength: 4 }),
      contentKept: fc.boolean(),
      session: fc.record({
        id: text,
        part: num,
        traceIds: names,
        cut: orNull(text),
        cutReason: orNull(text),
        continues: orNull(text),
      }),
      agents: fc.array(fc.record({ agent: text, handoff: orNull(text) }), { maxLength: 3 }),
      receivedAtUnixMs: orNull(num),
    },
    {
      requiredKeys: [
        'traceId',
        'state',
        'reason',
        'testCaseId',
        'testCaseIdAttribute',
        'serviceName',
        'serviceVersion',
        'deploymentEnvironment',
        'diagnostics',
        'matched',
        'awaitingJudge',
        'updatedAtUnixMs',
        'toolCalls',
        'contentKept',
        'receivedAtUnixMs',
      ],
    },
  )
  .map(r => r as unknown as Omit<RunRecord, 'results' | 'export'>);

describe('layout 2 record lines read back as layout 1 (property)', () => {
  it('every field of a record and its tool calls, under its own key or another', () => {
    fc.assert(
      fc.property(recordArb, fc.boolean(), fc.boolean(), (fields, ownKey, asJson) => {
        const key = ownKey ? fields.traceId : 'k';
        const line = compactRecordLine(fields, key, { contentAsJson: asJson });
        expect(line).not.toContain('\n');
        const back = decodeCompactRecord(JSON.parse(line) as Record<string, unknown>, key);
        expect(asLayout1(back)).toStrictEqual(asLayout1(fields));
      }),
      { numRuns: 400 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { normalizeTrace } from '../normalize/normalize-trace.js';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import { recordTestCases } from './record-test-cases.js';

/**
 * `suite record` of traces with session ids: a session test case only when a test case's traces
 * span two or more traces of one session; a session of one trace records a plain test case.
 */
describe('recordTestCases and sessions', () => {
  it('records a plain test case per run when the test case id attribute is also the session id (session.id)', () => {
    // OpenInference and the OpenAI Agents SDK write session.id; read as the test case id, every
    // run is a session of one trace.
    const runs = [
      agentTrace([{ name: 'get_weather', args: { city: 'Paris' } }], {
        rootAttributes: { 'session.id': 'weather-paris' },
      }),
      agentTrace(['get_weather', 'get_forecast'], {
        rootAttributes: { 'session.id': 'weather-rome' },
        atMs: 60_000,
      }),
    ].map(t => normalizeTrace(t.traceId, t.spans, { testCaseIdAttributes: ['session.id'] }));
    expect(runs.map(r => r.testCaseId)).toEqual(['weather-paris', 'weather-rome']);
    const recording = recordTestCases(runs, { args: 'subset' });
    expect(
      recording.cases.map(c => [c.id, c.turns, c.expectedCalls.map(call => call.name)]),
    ).toEqual([
      ['weather-paris', undefined, ['get_weather']],
      ['weather-rome', undefined, ['get_weather', 'get_forecast']],
    ]);
    expect(recording.cases[0]!.expectedCalls[0]!.args).toEqual({ city: 'Paris' });
    expect(recording.warnings.filter(w => w.includes('session'))).toEqual([]);
  });

  it('records a plain test case for a one-trace session with its own test case id', () => {
    const run = agentTrace(['lookup_order'], {
      testCaseId: 'lookup',
      rootAttributes: { 'session.id': 'conv-1' },
    });
    const [recorded] = recordTestCases([run], { args: 'ignore' }).cases;
    expect(recorded).toMatchObject({ id: 'lookup', expectedCalls: [{ name: 'lookup_order' }] });
    expect(recorded!.turns).toBeUndefined();
  });

  it('records a session test case, turn by turn, when the test case has two traces of one session', () => {
    const turns = [
      agentTrace(['lookup_order'], { testCaseId: 'refund', rootAttributes: { 'session.id': 'c' } }),
      agentTrace(['verify_identity', 'issue_refund'], {
        testCaseId: 'refund',
        rootAttributes: { 'session.id': 'c' },
        atMs: 60_000,
      }),
    ];
    const recording = recordTestCases(turns, { args: 'ignore' });
    expect(recording.cases.map(c => [c.id, c.expectedCalls, c.turns, c.otherTraces])).toEqual([
      [
        'refund',
        [],
        [[{ name: 'lookup_order' }], [{ name: 'verify_identity' }, { name: 'issue_refund' }]],
        0,
      ],
    ]);
    expect(recording.warnings).toContain(
      'test case "refund": recorded as a session test case from the 2 trace(s) of session c',
    );
  });
});

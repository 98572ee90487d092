import { describe, expect, it } from 'vitest';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import { runRecordPatch } from '../results/to-stored-results.js';
import { traceListEntry } from '../results/trace-list.js';
import { parseSuite } from '../suite/load-suite.js';
import { scoreTrace } from './score-trace.js';
import type { ScoringPlan } from './scoring-plan.js';
import { toolCallFacts } from './tool-call-facts.js';

/**
 * A turn of a session test case, scored as a trace while its session waits: not scored alone
 * (its state stays `not_scored`), but its run record keeps its calls as any trace's does, and
 * says when the session will be scored.
 */
const SUITE = `
name: support
scorers: [tool_trajectory]
testCases:
  - id: refund
    session: true
    before: [verify_identity, issue_refund]
`;

async function plan(idleMs?: number): Promise<ScoringPlan> {
  const suite = await parseSuite(SUITE, 'support.yaml', process.cwd());
  return { suites: [suite], rules: [], ...(idleMs !== undefined && { sessionIdleMs: idleMs }) };
}

const turn = (calls: string[], more: Record<string, string | boolean> = {}) =>
  agentTrace(calls, {
    testCaseId: 'refund',
    rootAttributes: { 'session.id': 'conv-1', ...more },
  });

describe('a turn of a session test case, waiting for its session', () => {
  it('keeps its calls on its run record, as any trace’s, without counting them', async () => {
    const t = turn(['verify_identity', 'issue_refund', 'issue_refund']);
    const run = await scoreTrace(t.traceId, t.spans, await plan(600_000));
    expect(run).toMatchObject({ state: 'not_scored', reasonCode: 'session_test_case' });
    const record = runRecordPatch(run, 0, false);
    expect(record.toolCalls.map(c => [c.name, c.status, c.spanId])).toEqual(
      t.spans.slice(1).map(s => [s.attributes['gen_ai.tool.name'], 'ok', s.spanId]),
    );
    expect(record.toolCalls.every(c => c.arguments === undefined)).toBe(true);
    const listed = traceListEntry({ ...record, results: [] });
    expect([listed.state, listed.tools, listed.toolCalls, listed.outcomes]).toEqual([
      'not_scored',
      ['verify_identity', 'issue_refund', 'issue_refund'],
      3,
      { ok: 3, error: 0, refused: 0 },
    ]);
    // Counted once, by the session's pass: the turn's own pass counts none.
    expect(toolCallFacts(run)).toEqual([]);
  });

  it('says when its session will be scored: idle, or at once when a turn marks the end', async () => {
    const t = turn(['verify_identity']);
    const waiting = await scoreTrace(t.traceId, t.spans, await plan(600_000));
    expect(waiting.reason).toBe(
      'a turn of session test case support / refund: scored with its session: after 10 minutes idle, or at once when a turn marks the end (spanscore.session.end, or sessionEnd / session_end in its framework’s metadata)',
    );
    expect((await scoreTrace(t.traceId, t.spans, await plan(90_000))).reason).toContain(
      'after 90 seconds idle',
    );
    expect((await scoreTrace(t.traceId, t.spans, await plan(600))).reason).toContain(
      'after 600 ms idle',
    );
    const last = turn(['issue_refund'], { 'ai.telemetry.metadata.sessionEnd': true });
    const ending = await scoreTrace(last.traceId, last.spans, await plan(600_000));
    expect(ending).toMatchObject({ state: 'not_scored', endsSession: true });
    expect(ending.reason).toBe(
      'a turn of session test case support / refund: scored with its session: at once, this turn marks the end (ai.telemetry.metadata.sessionEnd)',
    );
    // Offline, a session is scored once every trace is read: nothing to wait for.
    expect((await scoreTrace(t.traceId, t.spans, await plan())).reason).toBe(
      'a turn of session test case support / refund: scored with its session',
    );
  });
});

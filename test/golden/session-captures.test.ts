import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { findSessionId } from '../../src/normalize/find-session-id.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { findRoot } from '../../src/normalize/trace-root.js';
import { scoreSuite } from '../../src/score/score-suite.js';
import { loadSuite } from '../../src/suite/load-suite.js';

/**
 * The conversations of `captures/session-scenarios.ts`, captured from real frameworks (each turn
 * a run of its own, the turns of a conversation sharing the framework's session id), scored by the
 * session test cases of `test/fixtures/suites/session-captures.yaml`. The expectations are written from
 * the scenarios, never generated: which traces form which session, how many calls each turn made,
 * and each session test case's verdicts, a failing one naming its turn.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/otlp');

const CAPTURES = [
  // The AI SDK 6: experimental_telemetry.metadata.sessionId on every span of a turn.
  { name: 'captured-ai-sdk-6.0.325-sessions', attribute: 'ai.telemetry.metadata.sessionId' },
  // LangGraph with a MemorySaver thread, traced by OpenInference: the thread as session.id.
  {
    name: 'captured-langgraph-1.7.3-openinference-4.1.1-sessions',
    attribute: 'session.id',
  },
  // The OpenAI Agents SDK through OpenInference's bridge, which drops the Runner's groupId: the
  // conversation as OpenInference's setSession writes it, session.id.
  { name: 'captured-openai-agents-0.20.0-sessions', attribute: 'session.id' },
  // Mastra with a @mastra/memory thread: its exporter writes the thread as gen_ai.conversation.id
  // (and mastra.metadata.threadId).
  { name: 'captured-mastra-1.71.0-sessions', attribute: 'gen_ai.conversation.id' },
];

/** Each conversation: the calls of each turn, and each scorer's verdict. */
const EXPECTED = {
  'conv-verify-then-refund': {
    turns: [['lookup_order'], ['verify_identity', 'issue_refund']],
    verdicts: { tool_trajectory: 'pass', tool_loops: 'pass' },
  },
  'conv-refund-before-verify': {
    turns: [['lookup_order', 'issue_refund'], ['verify_identity']],
    verdicts: { tool_trajectory: 'fail', tool_loops: 'pass' },
  },
  'conv-repeated-lookup': {
    turns: [['lookup_order'], ['lookup_order'], ['lookup_order']],
    verdicts: { tool_trajectory: 'pass', tool_loops: 'fail' },
  },
  'conv-one-turn': {
    turns: [['lookup_order', 'verify_identity', 'issue_refund']],
    verdicts: { tool_trajectory: 'pass', tool_loops: 'pass' },
  },
};

describe.each(CAPTURES)('the sessions of $name', ({ name, attribute }) => {
  const read = () => readTraceFiles([join(FIXTURES, `${name}.otlp.json`)]);

  it(`finds each turn's session id in ${attribute}, one trace per turn`, async () => {
    const traces = groupSpansByTrace((await read()).spans);
    const turns = new Map<string, number>();
    for (const [, spans] of traces) {
      const found = findSessionId(spans, findRoot(spans));
      expect(found?.attribute).toBe(attribute);
      turns.set(found!.id, (turns.get(found!.id) ?? 0) + 1);
    }
    expect(Object.fromEntries(turns)).toEqual(
      Object.fromEntries(Object.entries(EXPECTED).map(([id, e]) => [id, e.turns.length])),
    );
  });

  it('scores each conversation as one: turns in order, verdicts, the failing turn named', async () => {
    const suite = await loadSuite(join(ROOT, 'test/fixtures/suites/session-captures.yaml'));
    const run = await scoreSuite((await read()).spans, suite);
    // Every trace belongs to a conversation: none is left unmatched or scored alone.
    expect(run.unmatched).toEqual([]);
    expect(run.missing).toEqual([]);
    const sessions = new Map(
      run.scored.map(s => [
        s.trace.session!.id,
        {
          turns: s.trace.session!.turns.map(t =>
            s.trace.toolSequence.slice(t.firstCall, t.firstCall + t.calls).map(c => c.name),
          ),
          verdicts: Object.fromEntries(
            s.outcomes.map(o => [o.scorer, o.result.status === 'scored' ? o.result.label : '?']),
          ),
        },
      ]),
    );
    expect(Object.fromEntries(sessions)).toEqual(EXPECTED);
    const wrong = run.scored.find(s => s.trace.session!.id === 'conv-refund-before-verify')!;
    const trajectory = wrong.outcomes.find(o => o.scorer === 'tool_trajectory')!.result;
    expect(trajectory).toMatchObject({
      reason:
        'turn 2: trajectory does not match (in_order); missing: issue_refund (called in turn 1); ' +
        'out of order: issue_refund in turn 1 before any verify_identity (first in turn 2)',
      details: { failingTurn: 2 },
    });
    const loop = run.scored.find(s => s.trace.session!.id === 'conv-repeated-lookup')!;
    expect(loop.outcomes.find(o => o.scorer === 'tool_loops')!.result).toMatchObject({
      reason: 'lookup_order was called 3 times with the same arguments ({"orderId":"A1"})',
    });
  });
});

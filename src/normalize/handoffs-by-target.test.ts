import { describe, expect, it } from 'vitest';
import { agentsInOrder, type Handoff } from './attribute-agents.js';
import { HandoffsByTarget } from './handoffs-by-target.js';

/** A handoff to `to`, told apart by `spanId`, whose target reads are counted in `reads`. */
function handoff(to: string, spanId: string, reads: { n: number }): Handoff {
  return {
    from: undefined,
    get to() {
      reads.n++;
      return to;
    },
    callId: undefined,
    rawName: `transfer_to_${to}`,
    spanId,
    startTimeUnixNano: 0n,
    source: 'executed',
  };
}

describe('HandoffsByTarget', () => {
  it('gives each agent its handoffs in trace order, each once, and nothing once they are taken', () => {
    const reads = { n: 0 };
    const unused = new HandoffsByTarget([
      handoff('billing', 'h1', reads),
      handoff('triage', 'h2', reads),
      handoff('billing', 'h3', reads),
    ]);
    expect(unused.take('billing')?.spanId).toBe('h1');
    expect(unused.take('refunds')).toBeUndefined();
    expect(unused.take('billing')?.spanId).toBe('h3');
    expect(unused.take('billing')).toBeUndefined();
    expect(unused.take('triage')?.spanId).toBe('h2');
  });

  it('reads each handoff’s target once, whatever the turns (hostile: 20,000 handoffs, 20,000 turns)', () => {
    const reads = { n: 0 };
    // Handoffs to agents no turn is of, then one to each turn's agent: a scan of the unused
    // ones for each turn would read 20,000 targets a turn.
    const handoffs = [
      ...Array.from({ length: 10_000 }, (_, i) => handoff(`ghost_${i}`, `g${i}`, reads)),
      ...Array.from({ length: 10_000 }, (_, i) => handoff(`agent_${i}`, `a${i}`, reads)),
    ];
    const unused = new HandoffsByTarget(handoffs);
    let found = 0;
    for (let turn = 0; turn < 20_000; turn++)
      if (unused.take(`agent_${turn % 10_000}`) !== undefined) found++;
    expect(found).toBe(10_000);
    expect(reads.n).toBe(20_000);
  });
});

describe('agentsInOrder', () => {
  it('lists each agent once, at its first turn, past a few agents too (20,000 turns of 5,000 agents)', () => {
    const few = agentsInOrder(['triage', 'billing', 'triage', 'refunds'].map(agent => ({ agent })));
    expect(few).toEqual(['triage', 'billing', 'refunds']);
    const turns = Array.from({ length: 20_000 }, (_, i) => ({ agent: `agent_${(i * 7) % 5000}` }));
    const many = agentsInOrder(turns);
    expect(many).toHaveLength(5000);
    expect(many.slice(0, 3)).toEqual(['agent_0', 'agent_7', 'agent_14']);
    expect(new Set(many).size).toBe(5000);
    // Each agent at its first turn: the order of first appearance.
    expect(many).toEqual([...new Set(turns.map(t => t.agent))]);
  });
});

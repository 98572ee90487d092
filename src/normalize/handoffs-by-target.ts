import type { Handoff } from './handoff.js';

/** One agent's handoffs, in trace order, and the first not yet taken. */
interface Queue {
  readonly list: Handoff[];
  next: number;
}

/**
 * A trace's handoffs not yet given to a turn of its route, by the agent each hands control to:
 * a turn takes the first unused handoff to its agent in constant time. A scan of the unused
 * handoffs for each turn cost the product of the two, and both come from the trace (up to
 * `assembly.maxSpansPerTrace` agent spans, and one model message may request thousands of
 * calls): 10,000 of each was 10⁸ steps. Each handoff's target is read once.
 */
export class HandoffsByTarget {
  private readonly byTarget = new Map<string, Queue>();

  constructor(handoffs: readonly Handoff[]) {
    for (let i = 0; i < handoffs.length; i++) {
      const handoff = handoffs[i]!;
      const to = handoff.to;
      const queue = this.byTarget.get(to);
      if (queue) queue.list.push(handoff);
      else this.byTarget.set(to, { list: [handoff], next: 0 });
    }
  }

  /** The first handoff to `agent` not taken yet, now taken; `undefined` when none is left. */
  take(agent: string): Handoff | undefined {
    const queue = this.byTarget.get(agent);
    if (!queue || queue.next === queue.list.length) return undefined;
    return queue.list[queue.next++];
  }
}

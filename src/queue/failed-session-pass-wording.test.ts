import { describe, expect, it } from 'vitest';
import { failedSessionPassWording } from './failed-session-pass-wording.js';

describe('failedSessionPassWording', () => {
  it('says a kept part that was not cut is scored again by a later turn (bullmq: its turns stay)', () => {
    const said = failedSessionPassWording('conv', { part: 1 }, 2, 'store down', 'kept');
    expect(said.partDetail).toContain('only a later turn scores it again');
  });

  it('says a kept part that was cut is closed: not scored again, a later turn opens the next part', () => {
    // It said "only a later turn scores it again", but a cut part takes no turn: the next turn
    // opens part 2 and part 1 stays failed.
    const cut = { code: 'max_traces', reason: 'sessions.maxTraces (1) turns' } as const;
    const said = failedSessionPassWording('conv', { part: 1, cut }, 1, 'store down', 'kept');
    expect(said.partDetail).not.toContain('scores it again');
    expect(said.partDetail).toContain('it was cut (max_traces: sessions.maxTraces)');
    expect(said.partDetail).toContain('not scored again (a later turn opens part 2)');
    expect(said.line).toContain('not scored again (a later turn opens part 2)');
  });
});

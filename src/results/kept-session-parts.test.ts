import { describe, expect, it } from 'vitest';
import type { TraceRun } from '../score/trace-run.js';
import { createMemoryResultsStore } from './memory-results-store.js';

const retention = {
  maxResults: 100,
  maxRuns: 4,
  retentionMs: 3_600_000,
  storeContent: true,
  maxServices: 20,
  maxToolsPerService: 30,
};

/** A pass's run record: of a session's part, or of a trace. */
function run(traceId: string, session?: { id: string; part: number }): TraceRun {
  return {
    traceId,
    phase: 'deterministic',
    state: 'scored',
    reason: undefined,
    reasonCode: undefined,
    testCaseId: undefined,
    testCaseIdAttribute: undefined,
    serviceName: '',
    serviceVersion: '',
    deploymentEnvironment: '',
    diagnostics: [],
    results: [],
    ...(session && { session: { ...session, traceIds: [traceId] } }),
  };
}

describe("the memory results store's latest kept part of a session", () => {
  it('is found when part 1, written first, is the first record to go', () => {
    // Counted up from part 1, no part was found once part 1's record went (the oldest written):
    // the session then opened a part 1 again, passing for the conversation from its start.
    const store = createMemoryResultsStore(retention);
    const how = { exportState: undefined } as never;
    for (let part = 1; part <= 3; part++) store.write(run(`t${part}`, { id: 'conv', part }), how);
    expect(store.lastSessionPart('conv')?.part).toBe(3);
    store.write(run('a'.repeat(32)), how);
    store.write(run('b'.repeat(32)), how); // 5 records past maxRuns 4: part 1's goes
    expect(store.lastSessionPart('conv')?.part).toBe(3);
    for (const c of 'cde') store.write(run(c.repeat(32)), how); // parts 2 and 3 go too
    expect(store.lastSessionPart('conv')).toBeUndefined();
  });

  it('keeps a part written again (a rescore) as the one it was', () => {
    const store = createMemoryResultsStore(retention);
    const how = { exportState: undefined } as never;
    store.write(run('t1', { id: 'conv', part: 1 }), how);
    store.write(run('t2', { id: 'conv', part: 2 }), how);
    store.write(run('t1', { id: 'conv', part: 1 }), how); // part 1 again: newest written now
    for (const c of 'ab') store.write(run(c.repeat(32)), how);
    store.write(run('c'.repeat(32)), how); // part 2's record goes first now
    expect(store.lastSessionPart('conv')?.part).toBe(1);
  });

  it('says whether the latest part ended failed', () => {
    const store = createMemoryResultsStore(retention);
    const how = { exportState: undefined } as never;
    store.write(run('t1', { id: 'conv', part: 1 }), how);
    expect(store.lastSessionPart('conv')).toEqual({ part: 1, cut: undefined, failed: false });
    void store.recordFailure('session:conv', 'deterministic', new Error('down'), {
      id: 'conv',
      part: 1,
      traceIds: ['t1'],
      cut: null,
      cutReason: null,
      continues: null,
    });
    expect(store.lastSessionPart('conv')).toEqual({ part: 1, cut: undefined, failed: true });
  });
});

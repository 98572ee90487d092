import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import {
  createMemorySessionAssembler,
  type MemorySessionAssemblerOptions,
} from './memory-session-assembler.js';
import type { SessionPass, SessionPolicy } from './session-policy.js';
import { sessionTurnBytes } from './session-turn-bytes.js';

const IDLE = 1_000;
const AGE = 60_000;
const POLICY: SessionPolicy = { idleMs: IDLE, maxTraces: 50, maxAgeMs: AGE };

let n = 0;
/** One turn's spans: a root carrying `text` (its size sets the turn's bytes). */
function turnSpans(text = 'x'): { traceId: string; spans: SpanDigest[] } {
  const traceId = (++n).toString(16).padStart(32, '0');
  const root: SpanDigest = {
    traceId,
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: '',
    name: 'invoke_agent support',
    kind: 1,
    startTimeUnixNano: BigInt(n) * 1_000_000n,
    endTimeUnixNano: BigInt(n) * 1_000_000n + 1n,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', note: text },
    events: [],
    statusCode: 0,
    statusMessage: '',
    serviceName: 'support',
    serviceVersion: '',
    deploymentEnvironment: '',
    scopeName: '',
  };
  return { traceId, spans: [root] };
}

interface Pass {
  sessionId: string;
  traceIds: string[];
  pass: SessionPass;
}

/** An assembler whose passes are recorded; `hold` makes each pass wait until released. */
function assembler(over: Partial<MemorySessionAssemblerOptions> = {}, hold = false) {
  const passes: Pass[] = [];
  const releases: Array<() => void> = [];
  const events: string[] = [];
  const a = createMemorySessionAssembler({
    policy: POLICY,
    maxOpen: 100,
    maxBytes: 1_000_000,
    letGo: { maxEntries: 100, maxBytes: 100_000 },
    score: (sessionId, traces, pass) => {
      passes.push({ sessionId, traceIds: traces.map(t => t.traceId), pass });
      return hold ? new Promise<void>(resolve => releases.push(resolve)) : Promise.resolve();
    },
    onEvicted: (id, bound) => events.push(`evicted ${id} ${bound}`),
    onRefused: (id, traceId) => events.push(`refused ${id} ${traceId}`),
    onDropped: (id, traceId) => events.push(`dropped ${id} ${traceId}`),
    now: () => Date.now(),
    ...over,
  });
  const add = (sessionId: string, turn = turnSpans(), tagged = true, ends = false) => {
    a.add({ sessionId, traceId: turn.traceId, tagged, ends }, turn.spans);
    return turn.traceId;
  };
  return { a, add, passes, releases, events };
}

/** Runs due timers and the promise callbacks they start. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createMemorySessionAssembler', () => {
  it('scores a session idleMs after its latest turn, each turn resetting the wait', async () => {
    const { add, passes } = assembler();
    const t1 = add('s');
    await advance(IDLE - 1);
    const t2 = add('s', turnSpans(), false);
    await advance(IDLE - 1);
    expect(passes).toEqual([]);
    await advance(1);
    expect(passes).toEqual([{ sessionId: 's', traceIds: [t1, t2], pass: { part: 1 } }]);
  });

  it('holds nothing for an untagged turn of no session', async () => {
    const { a, add, passes, events } = assembler();
    add('production', turnSpans(), false);
    await advance(AGE);
    expect(passes).toEqual([]);
    expect(events).toEqual([]);
    expect(a.stats()).toMatchObject({ held: 0, bytes: 0 });
  });

  it('scores at once a turn that ends its session', async () => {
    const { add, passes } = assembler();
    const t1 = add('s');
    const t2 = add('s', turnSpans(), false, true);
    await advance(0);
    expect(passes).toEqual([{ sessionId: 's', traceIds: [t1, t2], pass: { part: 1 } }]);
  });

  it('scores at once an earlier turn whose trace comes after the turn that ended the session', async () => {
    // Traces are scored in any order: the last turn (with the end marker) may be added first.
    const { add, passes } = assembler();
    const last = add('s', turnSpans(), true, true);
    await advance(0);
    expect(passes).toEqual([{ sessionId: 's', traceIds: [last], pass: { part: 1 } }]);
    const first = add('s');
    await advance(0);
    expect(passes).toEqual([
      { sessionId: 's', traceIds: [last], pass: { part: 1 } },
      { sessionId: 's', traceIds: [last, first], pass: { part: 1 } },
    ]);
  });

  it('scores again after a pass under way when a turn came meanwhile (again), one pass at a time', async () => {
    const { add, passes, releases } = assembler({}, true);
    const t1 = add('s');
    await advance(IDLE);
    expect(passes).toHaveLength(1);
    const t2 = add('s', turnSpans(), false);
    await advance(IDLE);
    // The first pass has not ended: the second waits for it.
    expect(passes).toHaveLength(1);
    releases[0]!();
    await advance(0);
    expect(passes.map(p => p.traceIds)).toEqual([[t1], [t1, t2]]);
    expect(passes[1]!.pass).toEqual({ part: 1 });
  });

  it('lets a session go maxAgeMs after its first turn; a late turn opens part 2, continuing max_age', async () => {
    const { a, add, passes } = assembler();
    const t1 = add('s');
    await advance(IDLE);
    await advance(AGE - IDLE);
    expect(a.stats().held).toBe(0);
    // Nothing waited: part 1 is not scored again.
    expect(passes).toHaveLength(1);
    const late = add('s', turnSpans(), false);
    await advance(IDLE);
    expect(passes).toEqual([
      { sessionId: 's', traceIds: [t1], pass: { part: 1 } },
      { sessionId: 's', traceIds: [late], pass: { part: 2, continues: 'max_age' } },
    ]);
  });

  it("gives a continuation the test case id its session's tagged turn carried", async () => {
    const { a, add, passes } = assembler({ maxOpen: 1 });
    const first = turnSpans();
    a.add(
      { sessionId: 's', traceId: first.traceId, tagged: true, ends: false, testCaseId: 'refund' },
      first.spans,
    );
    add('other');
    const late = add('s', turnSpans(), false, true);
    await advance(0);
    expect(passes.at(-1)).toEqual({
      sessionId: 's',
      traceIds: [late],
      pass: { part: 2, continues: 'evicted', testCaseId: 'refund' },
    });
    expect(passes[0]!.pass).toMatchObject({ part: 1, testCaseId: 'refund' });
  });

  it('scores a session waiting at maxAgeMs with cut max_age', async () => {
    const { add, passes } = assembler({ policy: { ...POLICY, idleMs: AGE * 2 } });
    add('s');
    await advance(AGE);
    expect(passes).toHaveLength(1);
    expect(passes[0]!.pass).toMatchObject({ part: 1, cut: { code: 'max_age' } });
    expect(passes[0]!.pass.cut!.reason).toMatch(/sessions\.maxAgeMs/);
  });

  it('at maxTraces scores the session at once, cut max_traces; the next turn opens part 2', async () => {
    const { add, passes } = assembler({ policy: { ...POLICY, maxTraces: 2 } });
    const t1 = add('s');
    const t2 = add('s', turnSpans(), false);
    await advance(0);
    expect(passes).toHaveLength(1);
    expect(passes[0]).toMatchObject({
      traceIds: [t1, t2],
      pass: { part: 1, cut: { code: 'max_traces' } },
    });
    const t3 = add('s', turnSpans(), false);
    await advance(IDLE);
    expect(passes[1]).toEqual({
      sessionId: 's',
      traceIds: [t3],
      pass: { part: 2, continues: 'max_traces' },
    });
  });

  it('cuts at maxSessionBytes: a turn that would take it past scores it as it stands and opens part 2', async () => {
    const one = turnSpans('y'.repeat(400));
    const bytes = sessionTurnBytes(one.spans);
    const { a, add, passes } = assembler({
      policy: { ...POLICY, maxSessionBytes: Math.floor(bytes * 1.5) },
    });
    const t1 = add('s', one);
    expect(a.stats().bytes).toBe(bytes);
    const two = turnSpans('y'.repeat(400));
    add('s', two, false);
    await advance(0);
    expect(passes).toEqual([
      {
        sessionId: 's',
        traceIds: [t1],
        pass: { part: 1, cut: expect.objectContaining({ code: 'max_bytes' }) as unknown },
      },
    ]);
    expect(a.open(10)).toMatchObject([{ sessionId: 's', part: 2, traceIds: [two.traceId] }]);
    await advance(IDLE);
    expect(passes[1]).toMatchObject({
      traceIds: [two.traceId],
      pass: { part: 2, continues: 'max_bytes' },
    });
  });

  it('at maxOpen lets the oldest go: scored with cut evicted when it waits; its late untagged turn continues it', async () => {
    const { add, passes, events } = assembler({ maxOpen: 1 });
    const a1 = add('a');
    const b1 = add('b');
    await advance(0);
    expect(events).toEqual(['evicted a max_open']);
    expect(passes).toEqual([
      {
        sessionId: 'a',
        traceIds: [a1],
        pass: { part: 1, cut: expect.objectContaining({ code: 'evicted' }) as unknown },
      },
    ]);
    const a2 = add('a', turnSpans(), false);
    await advance(IDLE);
    // b waited too: let go for a's part 2, scored with cut evicted.
    expect(passes.slice(1)).toEqual([
      {
        sessionId: 'b',
        traceIds: [b1],
        pass: { part: 1, cut: expect.objectContaining({ code: 'evicted' }) as unknown },
      },
      { sessionId: 'a', traceIds: [a2], pass: { part: 2, continues: 'evicted' } },
    ]);
  });

  it('at maxOpen lets an already scored session go without scoring it again; a late turn is part 2', async () => {
    const { add, passes, events } = assembler({ maxOpen: 1 });
    const a1 = add('a');
    await advance(IDLE);
    add('b');
    await advance(0);
    expect(events).toEqual(['evicted a max_open']);
    expect(passes).toEqual([{ sessionId: 'a', traceIds: [a1], pass: { part: 1 } }]);
    const a2 = add('a', turnSpans(), false);
    await advance(IDLE);
    // Part 1 was scored whole once idle (no cut): its continuation says so, not that it was cut.
    expect(passes.find(p => p.sessionId === 'a' && p.pass.part === 2)).toEqual({
      sessionId: 'a',
      traceIds: [a2],
      pass: { part: 2, continues: 'idle' },
    });
  });

  it('continues a kept part that no bound cut as idle, and a cut one with its cut', async () => {
    const kept = new Map([
      ['quiet', { part: 3, cut: undefined }],
      ['aged', { part: 1, cut: 'max_age' as const }],
    ]);
    const { add, passes } = assembler({ keptPart: id => kept.get(id) });
    const quiet = add('quiet');
    const aged = add('aged');
    await advance(IDLE);
    expect(passes).toEqual([
      { sessionId: 'quiet', traceIds: [quiet], pass: { part: 4, continues: 'idle' } },
      { sessionId: 'aged', traceIds: [aged], pass: { part: 2, continues: 'max_age' } },
    ]);
  });

  it('refuses a new session when maxBytes is full of sessions waiting: its turn is scored alone', async () => {
    const big = turnSpans('z'.repeat(1000));
    const bytes = sessionTurnBytes(big.spans);
    const { a, add, passes, events } = assembler({ maxBytes: Math.floor(bytes * 1.5) });
    add('a', big);
    const b1 = add('b', turnSpans('z'.repeat(1000)));
    await advance(0);
    expect(events).toEqual([`refused b ${b1}`]);
    expect(passes).toEqual([
      {
        sessionId: 'b',
        traceIds: [b1],
        pass: { part: 1, cut: expect.objectContaining({ code: 'max_bytes' }) as unknown },
      },
    ]);
    expect(passes[0]!.pass.cut!.reason).toMatch(/sessions\.maxBytes/);
    expect(a.stats()).toMatchObject({ held: 1, bytes });
    // Once a is scored it makes room: b's next turn is held, as its part 2.
    await advance(IDLE);
    const b2 = add('b', turnSpans('z'.repeat(1000)), false);
    await advance(IDLE);
    expect(events).toEqual([`refused b ${b1}`, 'evicted a max_bytes']);
    expect(passes.at(-1)).toEqual({
      sessionId: 'b',
      traceIds: [b2],
      pass: { part: 2, continues: 'max_bytes' },
    });
  });

  it('admits every turn of a held session, letting the oldest others go past maxBytes', async () => {
    const text = 'w'.repeat(1000);
    const bytes = sessionTurnBytes(turnSpans(text).spans);
    const { add, events, a } = assembler({ maxBytes: Math.floor(bytes * 2.5) });
    add('a', turnSpans(text));
    add('b', turnSpans(text));
    add('b', turnSpans(text), false);
    await advance(0);
    expect(events).toEqual(['evicted a max_bytes']);
    expect(a.stats()).toMatchObject({ held: 1, bytes: 2 * bytes });
  });

  it('bounds the record of sessions let go; a turn of one forgotten is counted as dropped', async () => {
    const { add, passes, events } = assembler({
      maxOpen: 1,
      letGo: { maxEntries: 2, maxBytes: 100_000 },
    });
    for (const id of ['a', 'b', 'c', 'd']) add(id);
    await advance(0);
    // a, b, c let go; the record keeps b and c.
    expect(events.filter(e => e.startsWith('evicted'))).toHaveLength(3);
    const lateA = add('a', turnSpans(), false);
    const lateC = add('c', turnSpans(), false);
    await advance(IDLE);
    expect(events).toContain(`dropped a ${lateA}`);
    expect(passes.at(-1)).toEqual({
      sessionId: 'c',
      traceIds: [lateC],
      pass: { part: 2, continues: 'evicted' },
    });
  });

  it('opens the next part for a tagged turn of a session forgotten since, never a part 1 that passes for the whole', async () => {
    const { add, passes } = assembler({ maxOpen: 1, letGo: { maxEntries: 2, maxBytes: 100_000 } });
    const first = [add('a'), add('a')];
    for (const id of ['b', 'c', 'd']) add(id);
    await advance(0);
    // a was scored (part 1, 2 turns, cut evicted), then dropped from the record by b and c.
    expect(passes[0]).toMatchObject({ sessionId: 'a', traceIds: first, pass: { part: 1 } });
    const late = add('a', turnSpans(), true);
    await advance(IDLE);
    expect(passes.filter(p => p.sessionId === 'a').at(-1)).toEqual({
      sessionId: 'a',
      traceIds: [late],
      pass: { part: 2, continues: 'evicted' },
    });
  });

  it('bounds the record of sessions let go in bytes too', async () => {
    const long = (c: string) => c.repeat(200);
    const { add, events } = assembler({ maxOpen: 1, letGo: { maxEntries: 100, maxBytes: 300 } });
    for (const id of [long('a'), long('b'), long('c')]) add(id);
    await advance(0);
    const late = add(long('a'), turnSpans(), false);
    expect(events).toContain(`dropped ${long('a')} ${late}`);
  });

  it('lists open sessions newest first, with when each will be scored', async () => {
    const { a, add } = assembler({}, true);
    const t0 = Date.now();
    const a1 = add('a');
    await advance(100);
    const b1 = add('b');
    expect(a.open(10)).toEqual([
      expect.objectContaining({
        sessionId: 'b',
        part: 1,
        traceIds: [b1],
        firstAtMs: t0 + 100,
        scoreAtMs: t0 + 100 + IDLE,
      }),
      expect.objectContaining({
        sessionId: 'a',
        part: 1,
        traceIds: [a1],
        firstAtMs: t0,
        scoreAtMs: t0 + IDLE,
      }),
    ]);
    expect(a.open(1)).toHaveLength(1);
    await advance(IDLE - 100);
    // a's pass is under way: no time is promised.
    expect(a.open(10)[1]).toMatchObject({ sessionId: 'a', scoreAtMs: undefined });
  });

  it('close() scores every session that waits', async () => {
    const { a, add, passes } = assembler();
    const t1 = add('s');
    await a.close();
    expect(passes).toEqual([{ sessionId: 's', traceIds: [t1], pass: { part: 1 } }]);
  });

  it('says of a failed pass what became of it: held (kept, scored again), let go, or closing', async () => {
    const failed: string[] = [];
    const { a, add } = assembler({
      maxOpen: 1,
      score: () => Promise.reject(new Error('down')),
      onFailed: (id, _error, f) =>
        failed.push(`${id} ${f.pass.part} ${f.traceIds.length} ${f.end}`),
    });
    add('a');
    await advance(IDLE);
    // Held: kept with its turn, to be scored again.
    expect(failed).toEqual(['a 1 1 held']);
    add('b');
    await advance(0);
    // a let go for b (maxOpen 1) and scored again, cut evicted: nothing holds its turn after.
    expect(failed).toEqual(['a 1 1 held', 'a 1 1 let_go']);
    await a.close();
    expect(failed.at(-1)).toBe('b 1 1 shutdown');
  });
});

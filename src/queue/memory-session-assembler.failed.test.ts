import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { isExportGiveUp } from './export-retry.js';
import {
  createMemorySessionAssembler,
  type MemorySessionAssemblerOptions,
} from './memory-session-assembler.js';
import type { SessionPass } from './session-policy.js';

/**
 * The memory session assembler when a pass fails after its retries: what ends the part, whether
 * it is scored again (each pass counted), and what its next part says it continues.
 */

const IDLE = 1_000;
const AGE = 86_400_000;

let n = 0x900;
function turn(): { traceId: string; spans: SpanDigest[] } {
  const traceId = (++n).toString(16).padStart(32, '0');
  const root: SpanDigest = {
    traceId,
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: '',
    name: 'invoke_agent support',
    kind: 1,
    startTimeUnixNano: BigInt(n) * 1_000_000n,
    endTimeUnixNano: BigInt(n) * 1_000_000n + 1n,
    attributes: { 'gen_ai.operation.name': 'invoke_agent' },
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

/**
 * An assembler whose passes are counted; `outcome(sessionId, pass)` says how each ends (a
 * promise the test may settle later).
 */
function assembler(
  outcome: (sessionId: string, pass: SessionPass) => Promise<void>,
  over: Partial<MemorySessionAssemblerOptions> = {},
) {
  const passes: Array<{ sessionId: string; traceIds: string[]; pass: SessionPass }> = [];
  const failed: string[] = [];
  const a = createMemorySessionAssembler({
    policy: { idleMs: IDLE, maxTraces: 50, maxAgeMs: AGE },
    maxOpen: 100,
    maxBytes: 1_000_000,
    letGo: { maxEntries: 100, maxBytes: 100_000 },
    score: (sessionId, traces, pass) => {
      passes.push({ sessionId, traceIds: traces.map(t => t.traceId), pass });
      return outcome(sessionId, pass);
    },
    onFailed: (id, _error, f) => failed.push(`${id} ${f.pass.part} ${f.traceIds.length} ${f.end}`),
    now: () => Date.now(),
    ...over,
  });
  const add = (sessionId: string, tagged = true) => {
    const t = turn();
    a.add({ sessionId, traceId: t.traceId, tagged, ends: false }, t.spans);
    return t.traceId;
  };
  return { a, add, passes, failed };
}

const down = () => Promise.reject(new SpanscoreError('SS_REDIS_FAILED', 'store down'));

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a failed session pass (memory session assembler)', () => {
  it('held: kept with its turns, scored again at its let-go (maxAgeMs) and not at close after', async () => {
    const { a, add, passes, failed } = assembler(down);
    add('a');
    await advance(IDLE);
    expect(failed).toEqual(['a 1 1 held']);
    expect(a.stats()).toMatchObject({ held: 1 });
    // Let go at maxAgeMs: scored again, as it stands; failing, nothing holds it after.
    await advance(AGE);
    expect(passes).toHaveLength(2);
    expect(failed).toEqual(['a 1 1 held', 'a 1 1 let_go']);
    await a.close();
    expect(passes).toHaveLength(2);
  });

  it('held: says it is scored again at its let-go, and makes room for a new session at maxBytes', async () => {
    // Measured: the bytes one turn holds.
    const probe = assembler(() => Promise.resolve());
    probe.add('probe');
    const oneTurn = probe.a.stats().bytes;
    await probe.a.close();

    const refused: string[] = [];
    const { a, add, passes, failed } = assembler(id => (id === 'a' ? down() : Promise.resolve()), {
      maxBytes: Math.floor(1.5 * oneTurn),
      onRefused: sessionId => refused.push(sessionId),
    });
    add('a');
    await advance(IDLE);
    expect(failed).toEqual(['a 1 1 held']);
    const [open] = a.open(10);
    expect(open!.scoreAtMs).toBe(open!.firstAtMs + AGE);
    // b needs a's room: a, failed, is let go (and scored again) rather than b refused. Before,
    // only sessions with nothing waiting made room, and a failed one never qualified.
    add('b');
    await advance(0);
    expect(refused).toEqual([]);
    expect(a.open(10).map(s => s.sessionId)).toEqual(['b']);
    expect(passes.map(p => p.sessionId)).toEqual(['a', 'a']);
    expect(failed).toEqual(['a 1 1 held', 'a 1 1 let_go']);
  });

  it("held: its session's next turn scores the part again with every turn, not a part 2", async () => {
    let up = false;
    const { add, passes } = assembler(() => (up ? Promise.resolve() : down()));
    const first = add('a');
    await advance(IDLE);
    up = true;
    const later = add('a', false);
    await advance(IDLE);
    expect(passes.at(-1)).toEqual({ sessionId: 'a', traceIds: [first, later], pass: { part: 1 } });
  });

  it('let go while its only pass is under way and then fails: its next part continues failed, not idle', async () => {
    const settle: Array<(ok: boolean) => void> = [];
    const { add, passes, failed } = assembler(
      (_id, pass) =>
        pass.part === 1
          ? new Promise((resolve, reject) =>
              settle.push(ok => (ok ? resolve() : reject(new Error('store down')))),
            )
          : Promise.resolve(),
      { maxOpen: 1 },
    );
    add('a');
    await advance(IDLE);
    // a's pass is under way (nothing waits): b lets it go without a cut.
    add('b');
    settle[0]!(false);
    await advance(0);
    expect(failed).toEqual(['a 1 1 let_go']);
    const later = add('a', false);
    await advance(IDLE);
    expect(passes.find(p => p.sessionId === 'a' && p.pass.part === 2)).toEqual({
      sessionId: 'a',
      traceIds: [later],
      pass: { part: 2, continues: 'failed' },
    });
  });

  it('continues failed a kept part whose record is failed (a session forgotten by the let-go record)', async () => {
    const { add, passes } = assembler(() => Promise.resolve(), {
      keptPart: id => (id === 'gone' ? { part: 2, cut: undefined, failed: true } : undefined),
    });
    const t = add('gone');
    await advance(IDLE);
    expect(passes).toEqual([
      { sessionId: 'gone', traceIds: [t], pass: { part: 3, continues: 'failed' } },
    ]);
  });

  it('cut at maxTraces and then failed: its next part continues the cut, as on bullmq', async () => {
    const { add, passes, failed } = assembler(
      (_id, pass) => (pass.part === 1 ? down() : Promise.resolve()),
      { policy: { idleMs: IDLE, maxTraces: 2, maxAgeMs: AGE } },
    );
    add('a');
    add('a', false);
    await advance(0);
    expect(failed).toEqual(['a 1 2 let_go']);
    const later = add('a', false);
    await advance(IDLE);
    // The cut says why part 1's turns are not here; part 1's own record says it failed.
    expect(passes.find(p => p.pass.part === 2)).toEqual({
      sessionId: 'a',
      traceIds: [later],
      pass: { part: 2, continues: 'max_traces' },
    });
  });

  it('continues the cut of a kept part whose record is failed, not failed', async () => {
    const { add, passes } = assembler(() => Promise.resolve(), {
      keptPart: id => (id === 'gone' ? { part: 2, cut: 'max_bytes', failed: true } : undefined),
    });
    const t = add('gone');
    await advance(IDLE);
    expect(passes).toEqual([
      { sessionId: 'gone', traceIds: [t], pass: { part: 3, continues: 'max_bytes' } },
    ]);
  });

  it('an export given up on: the part is not scored again, held, let go or at close', async () => {
    const gaveUp = () =>
      Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'export still failing after 60 s'));
    const { a, add, passes, failed } = assembler(gaveUp, {
      maxOpen: 1,
      resultsStored: isExportGiveUp,
    });
    add('a');
    await advance(IDLE);
    expect(failed).toEqual(['a 1 1 undefined']);
    expect(a.stats()).toMatchObject({ held: 1, waiting: 0 });
    // b lets a go (maxOpen 1): a waits for nothing, so it is not scored again.
    add('b');
    await advance(0);
    expect(passes.map(p => p.sessionId)).toEqual(['a']);
    await a.close();
    // b's own pass ran at close; a's never again.
    expect(passes.map(p => p.sessionId)).toEqual(['a', 'b']);
  });
});

async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
}

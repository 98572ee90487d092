import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { emptyAttributes } from '../ingest/span-digest.js';
import type { ToolCallExtractor } from './extractors/extractor.js';
import {
  extractOfferedTools,
  findOfferedTool,
  MAX_LOOP_SCANS,
  offeredToCall,
  type OfferedToolsBySpan,
} from './offered-tools.js';
import { SpanIndex } from './span-index.js';
import type { OfferedTool } from './tool-definitions.js';
import type { ToolCall } from './tool-call.js';

type Call = Pick<ToolCall, 'spanId' | 'requestedBy' | 'startTimeUnixNano'>;

function span(spanId: string, parentSpanId: string, start: bigint): SpanDigest {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId,
    parentSpanId,
    name: `span ${spanId}`,
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: start + 100n,
    attributes: emptyAttributes(),
    events: [],
    statusCode: 0,
    statusMessage: '',
    serviceName: 'agent',
    serviceVersion: '',
    deploymentEnvironment: '',
    scopeName: '',
  };
}

/** A span index that counts the spans read through it: the work of a walk up the tree. */
class CountingIndex extends SpanIndex {
  reads = 0;
  override get(spanId: string): SpanDigest | undefined {
    this.reads++;
    return super.get(spanId);
  }
}

const TOOLS: readonly OfferedTool[] = [{ name: 'search' }];

/**
 * The oracle: `offeredToCall` as it was before the offering spans were indexed (issue 58), which
 * walked up from every offering span for every call.
 */
function offeredToCallByScan(call: Call, offered: OfferedToolsBySpan, index: SpanIndex) {
  if (offered.size === 0) return undefined;
  if (call.requestedBy !== undefined) {
    const own = offered.get(call.requestedBy);
    if (own) return { spanId: call.requestedBy, tools: own };
  }
  const anchor = call.requestedBy ?? call.spanId;
  const up = new Map<string, number>();
  let id: string = anchor;
  for (let hops = 0; id !== '' && hops < 64 && !up.has(id); hops++) {
    up.set(id, hops);
    id = index.get(id)?.parentSpanId ?? '';
  }
  let best: { spanId: string; hops: number; before: boolean; start: bigint } | undefined;
  for (const spanId of offered.keys()) {
    const span = index.get(spanId);
    if (!span) continue;
    let hops: number | undefined;
    let at: string = spanId;
    for (let i = 0; at !== '' && i < 64; i++) {
      hops = up.get(at);
      if (hops !== undefined) break;
      at = index.get(at)?.parentSpanId ?? '';
    }
    if (hops === undefined) hops = 64;
    const before = span.startTimeUnixNano <= call.startTimeUnixNano;
    const better =
      !best ||
      hops < best.hops ||
      (hops === best.hops &&
        (before !== best.before
          ? before
          : before
            ? span.startTimeUnixNano > best.start
            : span.startTimeUnixNano < best.start));
    if (better) best = { spanId, hops, before, start: span.startTimeUnixNano };
  }
  return best && { spanId: best.spanId, tools: offered.get(best.spanId)! };
}

/**
 * A trace of `size` spans, `s0`…, with parents as `parent` picks them (an index, or -1 for a root
 * or -2 for a parent missing from the trace), and starts in a narrow range (ties happen); some
 * spans offer tools, listed in `offered` in any order (with an id missing from the trace, too);
 * calls anchored anywhere, some requested by a span, some by a span the trace lacks.
 */
function traceCase(parentOf: (i: number) => fc.Arbitrary<number>) {
  return fc.integer({ min: 1, max: 40 }).chain(size =>
    fc.record({
      parents: fc.tuple(...Array.from({ length: size }, (_, i) => parentOf(i))),
      starts: fc.array(fc.bigInt({ min: 0n, max: 6n }), { minLength: size, maxLength: size }),
      offering: fc.shuffledSubarray([...Array.from({ length: size }, (_, i) => `s${i}`), 'gone'], {
        maxLength: Math.min(12, size + 1),
      }),
      calls: fc.array(
        fc.record({
          spanId: fc.oneof(
            fc.nat(size - 1).map(i => `s${i}`),
            fc.constant('gone'),
          ),
          requestedBy: fc.option(
            fc.oneof(
              fc.nat(size - 1).map(i => `s${i}`),
              fc.constant('elsewhere'),
            ),
            { nil: undefined },
          ),
          startTimeUnixNano: fc.bigInt({ min: 0n, max: 7n }),
        }),
        { minLength: 1, maxLength: 20 },
      ),
    }),
  );
}

function agrees({
  parents,
  starts,
  offering,
  calls,
}: {
  parents: number[];
  starts: bigint[];
  offering: string[];
  calls: Call[];
}): void {
  const spans = parents.map((p, i) =>
    span(`s${i}`, p === -1 ? '' : p === -2 ? 'missing' : `s${p}`, starts[i]!),
  );
  const index = new SpanIndex(spans);
  const offered: OfferedToolsBySpan = new Map(offering.map(id => [id, TOOLS]));
  for (const call of calls)
    expect(
      offeredToCall(call, offered, index),
      JSON.stringify(call, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
    ).toEqual(offeredToCallByScan(call, offered, index));
}

describe('offeredToCall', () => {
  it('chooses as the scan over every offering span did, on generated trees', () => {
    const tree = (i: number) =>
      i === 0
        ? fc.constantFrom(-1, -2)
        : fc.oneof({ weight: 8, arbitrary: fc.nat(i - 1) }, fc.constantFrom(-1, -2));
    fc.assert(fc.property(traceCase(tree), agrees), { numRuns: 400 });
  });

  it('chooses as the scan did where parent ids loop or chains run past 64 spans', () => {
    // Any span may be any span's parent (loops, a span its own parent); long chains, some closed.
    const loops = (i: number) =>
      fc.oneof(fc.integer({ min: -2, max: 39 }), fc.constant(i + 1), fc.constant(i));
    fc.assert(fc.property(traceCase(loops), agrees), { numRuns: 400 });
    const chain = (length: number, closed: boolean) => {
      const spans = Array.from({ length }, (_, i) =>
        span(`c${i}`, i + 1 < length ? `c${i + 1}` : closed ? 'c40' : '', BigInt(i % 5)),
      );
      const offered = new Map(['c3', 'c70', 'c100', 'c5'].map(id => [id, TOOLS]));
      const index = new SpanIndex(spans);
      for (const anchor of ['c0', 'c2', 'c4', 'c6', 'c30', 'c80', 'c119'])
        for (const start of [0n, 2n, 9n]) {
          const call = { spanId: anchor, startTimeUnixNano: start };
          expect(offeredToCall(call, offered, index), `${length} ${closed} ${anchor}`).toEqual(
            offeredToCallByScan(call, offered, index),
          );
        }
    };
    for (const closed of [false, true]) for (const length of [50, 66, 120]) chain(length, closed);
  });

  it('bounds the scans of calls whose parent ids loop (4,000 calls on loops, 200 offering)', () => {
    // A hostile trace: 200 offering spans, and 4,000 calls each on a loop of parent ids of its own
    // (c_i → l_i → c_i), so that no call's chain reaches an offering span.
    const spans = [span('root', '', 0n)];
    for (let i = 0; i < 200; i++) spans.push(span(`o${i}`, 'root', BigInt(i)));
    const calls: Call[] = [];
    for (let i = 0; i < 4_000; i++) {
      spans.push(span(`c${i}`, `l${i}`, 1n), span(`l${i}`, `c${i}`, 1n));
      calls.push({ spanId: `c${i}`, startTimeUnixNano: 300n });
    }
    const offered: OfferedToolsBySpan = new Map(
      spans.filter(s => s.spanId.startsWith('o')).map(s => [s.spanId, TOOLS]),
    );
    const index = new CountingIndex(spans);
    for (const call of calls) expect(offeredToCall(call, offered, index)?.spanId).toBe('o199');
    // Scans for the first MAX_LOOP_SCANS calls (each 200 offering spans, 3 reads each), then each
    // call's own chain through the index: 27,664 reads when set.
    const ceiling = 30_000;
    expect(index.reads).toBeLessThanOrEqual(ceiling);
    expect(MAX_LOOP_SCANS * 200 * 3).toBeLessThan(ceiling);
    // A scan of every call, as before the bound: 602 reads a call, 2,408,000 for the 4,000.
    const unbounded = new CountingIndex(spans);
    for (const call of calls.slice(0, 100)) offeredToCallByScan(call, offered, unbounded);
    expect(unbounded.reads * (calls.length / 100)).toBeGreaterThan(50 * ceiling);
  });

  it('reads each offering span once per trace, not once per call (4,000 calls, 200 offering)', () => {
    // root → 10 teams → 20 agents each (offering) → 4 model calls each → 5 tool calls each.
    const spans = [span('root', '', 0n)];
    const calls: Call[] = [];
    let t = 1n;
    for (let team = 0; team < 10; team++) {
      spans.push(span(`t${team}`, 'root', t++));
      for (let agent = 0; agent < 20; agent++) {
        const agentId = `a${team}.${agent}`;
        spans.push(span(agentId, `t${team}`, t++));
        for (let model = 0; model < 4; model++) {
          const modelId = `${agentId}.m${model}`;
          spans.push(span(modelId, agentId, t++));
          for (let n = 0; n < 5; n++) {
            const toolId = `${modelId}.c${n}`;
            spans.push(span(toolId, modelId, t++));
            calls.push({ spanId: toolId, requestedBy: modelId, startTimeUnixNano: t });
          }
        }
      }
    }
    const offered: OfferedToolsBySpan = new Map(
      spans.filter(s => /^a\d+\.\d+$/.test(s.spanId)).map(s => [s.spanId, TOOLS]),
    );
    expect([calls.length, offered.size]).toEqual([4_000, 200]);
    const indexed = new CountingIndex(spans);
    const scanned = new CountingIndex(spans);
    for (const call of calls) {
      const chosen = offeredToCall(call, offered, indexed);
      expect(chosen?.spanId).toBe(call.requestedBy!.slice(0, call.requestedBy!.indexOf('.m')));
      expect(chosen).toEqual(offeredToCallByScan(call, offered, scanned));
    }
    // Indexed: each offering span's ancestors once (200 × 3), then each call's (4,000 × 4).
    const ceiling = 20_000;
    expect(indexed.reads).toBeLessThanOrEqual(ceiling);
    expect(scanned.reads).toBeGreaterThan(50 * ceiling);
  });
});

describe('extractOfferedTools', () => {
  /** Tools whose `name` counts its reads: the work of deduplicating them. */
  function countedTools(prefix: string, count: number, reads: { n: number }): OfferedTool[] {
    return Array.from({ length: count }, (_, i) => ({
      get name() {
        reads.n++;
        return `${prefix}${i % (count / 2)}`;
      },
      description: `${prefix} #${i}`,
    }));
  }
  const reader = (tools: OfferedTool[]): ToolCallExtractor => ({ id: 'x', offered: () => tools });

  it("keeps each name's first definition, in order, across conventions", () => {
    const reads = { n: 0 };
    const first = countedTools('t', 4, reads); // t0 t1 t0 t1
    const second = countedTools('t', 6, reads); // t0 t1 t2 t0 t1 t2
    const out = extractOfferedTools([span('s', '', 0n)], [reader(first), reader(second)]);
    expect(out.get('s')!.map(t => t.description)).toEqual(['t #0', 't #1', 't #2']);
  });

  it('reads each tool name a bounded number of times: linear in the tools of a span', () => {
    const reads = { n: 0 };
    const tools = [countedTools('a', 2_000, reads), countedTools('b', 2_000, reads)];
    const out = extractOfferedTools([span('s', '', 0n)], tools.map(reader));
    expect(out.get('s')).toHaveLength(2_000);
    // Comparing each tool with those kept before it read names about 2,000 × 1,000 times.
    expect(reads.n).toBeLessThanOrEqual(4_000);
  });
});

describe('findOfferedTool', () => {
  it('finds a name as spanscore compares names: the very name first, then the first that folds to it', () => {
    for (const extra of [0, 100]) {
      // Past SCANNED_TOOLS the list is indexed: the same answers.
      const filler = Array.from({ length: extra }, (_, i) => ({ name: `filler_${i}` }));
      const tools = [
        ...filler,
        { name: 'get_weather', description: 'folded first' },
        { name: 'getWeather', description: 'the very name' },
        { name: 'GET-WEATHER', description: 'folded later' },
      ];
      expect(findOfferedTool(tools, 'getWeather')?.description).toBe('the very name');
      expect(findOfferedTool(tools, 'functions.get_weather')?.description).toBe('folded first');
      expect(findOfferedTool(tools, 'Get Weather')?.description).toBe('folded first');
      expect(findOfferedTool(tools, 'delete_booking')).toBeUndefined();
    }
  });

  it('reads each offered name a bounded number of times, however many calls look it up', () => {
    // A model span offering 2,000 tools and requesting 1,000 calls of a tool it was not offered:
    // every lookup compared, then folded, every offered name (4 million reads; 20,000 names past
    // the name cache folded 20 million names, 59 s).
    let reads = 0;
    const tools = Array.from({ length: 2_000 }, (_, i) => ({
      get name() {
        reads++;
        return `tool_${i}`;
      },
    }));
    for (let i = 0; i < 1_000; i++) expect(findOfferedTool(tools, `other_${i}`)).toBeUndefined();
    expect(findOfferedTool(tools, 'tool_1999')?.name).toBe('tool_1999');
    expect(reads).toBeLessThanOrEqual(4 * tools.length);
  });
});

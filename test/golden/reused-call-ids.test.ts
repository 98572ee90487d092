import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { normalizeTrace } from '../../src/normalize/normalize-trace.js';

/**
 * Providers and frameworks that number tool calls per response or per step give the same call id
 * to different calls of later turns (`call_0` every turn). Each capture's `two-tools-in-order`
 * scenario (search_flights, then book_flight in the next turn) is read as captured, and again with
 * both call ids rewritten to `call_0`: the rewrite is by hand (the frameworks' spans are real,
 * the scripted servers gave distinct ids). The calls read must be the same two, with the same
 * arguments, results and agents, but for their ids.
 *
 * Covered: the captures whose tools ran in tool spans; and the same captures with their tool
 * spans taken out, so that only the model's requests are left and each call's result is the one
 * fed back to the model in a later request's input (matched by position where ids are shared:
 * before, the second call took the first one's result).
 */
const FIXTURES = new URL('../fixtures/otlp/', import.meta.url).pathname;
const WITH_IDS = readdirSync(FIXTURES)
  .filter(f => /^captured-.*\.otlp\.json$/.test(f))
  .filter(f => readFileSync(join(FIXTURES, f), 'utf8').includes('call_book'))
  .map(f => f.replace(/\.otlp\.json$/, ''));

const scratch = mkdtempSync(join(tmpdir(), 'spanscore-reused-ids-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The scenario's two calls as read; `requestsOnly`: with the spans that ran tools (those the
 * capture read as executed calls) taken out first.
 */
async function twoToolsInOrder(file: string, requestsOnly = false) {
  const { spans } = await readTraceFiles([file]);
  for (const [traceId, traceSpans] of groupSpansByTrace(spans)) {
    let trace = normalizeTrace(traceId, traceSpans);
    if (trace.testCaseId !== 'two-tools-in-order') continue;
    if (requestsOnly) {
      const ran = new Set(
        trace.toolSequence.filter(c => c.source === 'executed').map(c => c.spanId),
      );
      trace = normalizeTrace(
        traceId,
        traceSpans.filter(s => !ran.has(s.spanId)),
      );
    }
    return {
      ran:
        trace.toolSequence.length === 2 && trace.toolSequence.every(c => c.source === 'executed'),
      toolsUsed: trace.toolsUsed,
      calls: trace.toolSequence.map(c => ({
        name: c.name,
        callId: c.callId,
        arguments: c.arguments,
        requestedArguments: c.requestedArguments,
        result: c.result,
        outcome: c.outcome,
        source: c.source,
        agent: c.agent,
      })),
    };
  }
  return undefined;
}

const CAPTURES: string[] = [];
for (const name of WITH_IDS)
  if ((await twoToolsInOrder(join(FIXTURES, `${name}.otlp.json`)))?.ran) CAPTURES.push(name);

describe('call ids reused across turns (captures, ids rewritten to call_0)', () => {
  it('covers the captures of both tools with ids', () => {
    expect(CAPTURES.length).toBeGreaterThanOrEqual(15);
  });

  it.each(CAPTURES)('%s: both calls kept, each with its own arguments and result', async name => {
    const original = join(FIXTURES, `${name}.otlp.json`);
    const reused = join(scratch, `${name}.otlp.json`);
    writeFileSync(
      reused,
      readFileSync(original, 'utf8')
        .replaceAll('call_search', 'call_0')
        .replaceAll('call_book', 'call_0'),
    );
    const before = (await twoToolsInOrder(original))!;
    const after = (await twoToolsInOrder(reused))!;
    expect(before.toolsUsed).toEqual(['search_flights', 'book_flight']);
    expect(after.toolsUsed).toEqual(before.toolsUsed);
    expect(after.calls).toEqual(
      before.calls.map(c => ({ ...c, callId: c.callId === undefined ? undefined : 'call_0' })),
    );
  });
});

/** The captures whose model spans, alone, give both calls the results fed back to them. */
const FED_BACK: string[] = [];
for (const name of CAPTURES) {
  const read = await twoToolsInOrder(join(FIXTURES, `${name}.otlp.json`), true);
  if (
    read?.calls.length === 2 &&
    read.calls.every(c => c.source === 'requested' && c.result !== undefined)
  )
    FED_BACK.push(name);
}

describe("call ids reused across turns, the model's requests alone (tool spans taken out)", () => {
  it('covers the captures that feed results back to the model', () => {
    expect(FED_BACK.length).toBeGreaterThanOrEqual(5);
  });

  it.each(FED_BACK)('%s: each call keeps the result fed back for it', async name => {
    const original = join(FIXTURES, `${name}.otlp.json`);
    const reused = join(scratch, `${name}.requests.otlp.json`);
    writeFileSync(
      reused,
      readFileSync(original, 'utf8')
        .replaceAll('call_search', 'call_0')
        .replaceAll('call_book', 'call_0'),
    );
    const before = (await twoToolsInOrder(original, true))!;
    const after = (await twoToolsInOrder(reused, true))!;
    expect(before.calls.map(c => c.name)).toEqual(['search_flights', 'book_flight']);
    // Two different results: the test would not see one call given the other's.
    expect(before.calls[0]!.result).not.toEqual(before.calls[1]!.result);
    expect(after.calls).toEqual(before.calls.map(c => ({ ...c, callId: 'call_0' })));
  });
});

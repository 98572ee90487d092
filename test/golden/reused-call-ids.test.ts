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
 * Covered: the captures whose tools ran in tool spans. Where a trace has only the model's requests
 * (no tool spans), a result fed back to the model is still matched to its call by id alone, so a
 * reused id gives a later call an earlier call's result: a known limit, not tested here.
 */
const FIXTURES = new URL('../fixtures/otlp/', import.meta.url).pathname;
const WITH_IDS = readdirSync(FIXTURES)
  .filter(f => /^captured-.*\.otlp\.json$/.test(f))
  .filter(f => readFileSync(join(FIXTURES, f), 'utf8').includes('call_book'))
  .map(f => f.replace(/\.otlp\.json$/, ''));

const scratch = mkdtempSync(join(tmpdir(), 'spanscore-reused-ids-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function twoToolsInOrder(file: string) {
  const { spans } = await readTraceFiles([file]);
  for (const [traceId, traceSpans] of groupSpansByTrace(spans)) {
    const trace = normalizeTrace(traceId, traceSpans);
    if (trace.testCaseId !== 'two-tools-in-order') continue;
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

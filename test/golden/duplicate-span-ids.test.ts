import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { assessToolCalls } from '../../src/normalize/assess-tool-calls.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { normalizeTrace, type NormalizedTrace } from '../../src/normalize/normalize-trace.js';

/**
 * A span id that arrives twice (an exporter's retry, or a sender who knows the ids and sends a
 * different span under one) counts as its first copy everywhere: `groupSpansByTrace` and both
 * drivers keep the first, and so must a trace handed to `normalizeTrace` with both copies (a
 * session's turns, an API caller). Real captures, each with a second copy of one span appended by
 * hand (changed: another agent's name, another tool offered) to the same request.
 */
interface Span {
  spanId: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string } }>;
}
interface Request {
  resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }>;
}

const fixture = (name: string): Request =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/otlp/${name}.otlp.json`, import.meta.url), 'utf8'),
  ) as Request;

/** The request with a changed copy of the first span `pick` chooses appended after it. */
function withSecondCopy(request: Request, pick: (s: Span) => boolean, change: (s: Span) => void) {
  for (const rs of request.resourceSpans)
    for (const ss of rs.scopeSpans) {
      const span = ss.spans.find(pick);
      if (!span) continue;
      const copy = structuredClone(span);
      change(copy);
      ss.spans.push(copy);
      return request;
    }
  throw new Error('no span to copy');
}

/** Each trace of the request, normalized from its spans as decoded (both copies of a span). */
function tracesAsSent(request: Request): NormalizedTrace[] {
  const { spans } = decodeOtlpJson(request);
  const ids = [...new Set(spans.map(s => s.traceId))];
  return ids.map(id =>
    normalizeTrace(
      id,
      spans.filter(s => s.traceId === id),
    ),
  );
}

/** The same, its spans grouped as the pipeline reads them (the first copy of an id kept). */
function tracesAsRead(request: Request): NormalizedTrace[] {
  return [...groupSpansByTrace(decodeOtlpJson(request).spans)].map(([id, s]) =>
    normalizeTrace(id, s),
  );
}

describe('a span id sent twice counts as its first copy', () => {
  it('attributes calls and the route to the first copy of an agent span', () => {
    const name = 'captured-openai-agents-0.20.0-handoffs';
    const request = withSecondCopy(
      fixture(name),
      s => s.name === 'billing',
      s => {
        s.name = 'mallory';
        s.attributes.find(a => a.key === 'graph.node.id')!.value = { stringValue: 'mallory' };
      },
    );
    const agents = (t: NormalizedTrace) => ({
      route: t.agents.map(a => a.agent),
      calls: t.toolSequence.map(c => [c.name, c.agent]),
      handoffs: t.handoffs.map(h => [h.from, h.to]),
    });
    const expected = tracesAsRead(fixture(name)).map(agents);
    expect(expected.some(t => t.route.includes('billing'))).toBe(true);
    expect(tracesAsRead(request).map(agents)).toEqual(expected);
    expect(tracesAsSent(request).map(agents)).toEqual(expected);
  });

  it('checks calls against the tools the first copy of a model span offered', () => {
    const name = 'captured-ai-sdk-7.0.173';
    const request = withSecondCopy(
      fixture(name),
      s => s.attributes.some(a => a.key === 'gen_ai.tool.definitions'),
      s => {
        const definitions = s.attributes.find(a => a.key === 'gen_ai.tool.definitions')!;
        definitions.value = {
          stringValue: '[{"type":"function","name":"other_tool","inputSchema":{"type":"object"}}]',
        };
      },
    );
    const offered = (t: NormalizedTrace) =>
      assessToolCalls(t).calls.map(a => [a.call.name, a.offered, a.offeredNames]);
    const expected = tracesAsRead(fixture(name)).map(offered);
    expect(expected.flat().some(c => c[1] === true)).toBe(true);
    expect(tracesAsRead(request).map(offered)).toEqual(expected);
    expect(tracesAsSent(request).map(offered)).toEqual(expected);
  });
});

import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readAttributes } from '../../src/ingest/read-attributes.js';
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { isUnreadKey } from '../../src/ingest/unread-attributes.js';
import { WireSpanDigest } from '../../src/ingest/wire-span-digest.js';
import { findIdAttributes, idNames } from '../../src/normalize/find-id-attribute.js';
import { findSessionEnd } from '../../src/normalize/find-session-end.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { normalizeTrace } from '../../src/normalize/normalize-trace.js';
import { sessionTurnSpans } from '../../src/normalize/session-turn-spans.js';
import { findRoot } from '../../src/normalize/trace-root.js';
import { decodeSpanBatch, encodeSpanBatch } from '../../src/redis/span-batch-codec.js';

const DIR = new URL('../fixtures/otlp/', import.meta.url).pathname;
const FIXTURES = readdirSync(DIR).filter(f => f.endsWith('.otlp.json'));

/**
 * Attributes in unread families added to every span, so each span has records its wire form
 * leaves out; one of them is an id a configuration could name (`user_agent.session`).
 */
const EXTRA = {
  'http.request.method': 'POST',
  'gen_ai.usage.input_tokens': 812,
  'gen_ai.response.id': 'chatcmpl-1',
  'user_agent.session': 'conversation-7',
};

/** What normalization and the id, session-end and turn readers make of one trace's spans. */
function readings(traceId: string, spans: readonly SpanDigest[]) {
  const t = normalizeTrace(traceId, spans);
  const ids = idNames(['session.id', 'user_agent.session', 'metadata.session_id'], () => true);
  return {
    toolSequence: t.toolSequence,
    toolsUsed: t.toolsUsed,
    handoffs: t.handoffs,
    agents: t.agents,
    testCaseId: t.testCaseId,
    conversation: t.conversation,
    agentName: t.agentName,
    ids: findIdAttributes(spans, findRoot(spans), [ids]),
    end: findSessionEnd(spans),
    turnSpans: sessionTurnSpans(spans, ['user_agent.session', 'session.id']).map(s => s.spanId),
  };
}

describe('spans in wire form read as their decoded selves, their unread attributes left as bytes', () => {
  it.each(FIXTURES)('%s', async name => {
    const read = await readTraceFiles([`${DIR}${name}`]);
    const spans = read.spans.map(s => ({ ...s, attributes: { ...s.attributes, ...EXTRA } }));
    // The span batch codec keeps attributes as records, as the protobuf decoder does.
    const encoded = encodeSpanBatch(spans);
    const wire = decodeSpanBatch(encoded);
    expect(wire.every(s => s instanceof WireSpanDigest)).toBe(true);
    const plain = groupSpansByTrace(spans);
    const byTrace = groupSpansByTrace(wire);
    expect([...byTrace.keys()]).toEqual([...plain.keys()]);
    for (const [traceId, traceSpans] of byTrace)
      expect(readings(traceId, traceSpans)).toEqual(readings(traceId, plain.get(traceId)!));
    // What the readers see holds no unread attribute (until something reads the whole attributes,
    // as an id named in an unread family did above); the whole attributes hold every one.
    for (const span of decodeSpanBatch(encoded)) {
      expect(Object.keys(readAttributes(span)).filter(isUnreadKey)).toEqual([]);
      expect(span.attributes).toMatchObject(EXTRA);
    }
  });
});

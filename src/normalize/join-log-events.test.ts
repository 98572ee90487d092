import { describe, expect, it } from 'vitest';
import { logEventCarrier, NO_SPAN_ID } from '../ingest/log-event-carrier.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { emptyAttributes } from '../ingest/span-digest.js';
import { indexTrace } from './indexed-trace.js';
import { joinLogEvents, joinLogEventsWithRoot } from './join-log-events.js';
import { findRoot } from './trace-root.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

function span(spanId: string, parentSpanId: string, start: bigint): SpanDigest {
  return {
    traceId: TRACE,
    spanId,
    parentSpanId,
    name: `span ${spanId}`,
    kind: 3,
    startTimeUnixNano: start,
    endTimeUnixNano: start + 100n,
    attributes: emptyAttributes(),
    events: [{ name: 'own', timeUnixNano: start + 50n, attributes: emptyAttributes() }],
    statusCode: 0,
    statusMessage: '',
    serviceName: 'agent',
    serviceVersion: '',
    deploymentEnvironment: '',
    scopeName: '',
  };
}

function carrier(spanId: string, eventName: string, time: bigint): SpanDigest {
  return logEventCarrier(
    {
      traceId: TRACE,
      spanId,
      eventName,
      timeUnixNano: time,
      attributes: emptyAttributes(),
      body: { content: eventName },
      serviceName: 'agent',
      serviceVersion: '',
      deploymentEnvironment: '',
      scopeName: 'instr',
    },
    `${spanId} ${eventName} ${time}`,
  );
}

const root = span('aaaaaaaaaaaaaaaa', '', 0n);
const chat = span('bbbbbbbbbbbbbbbb', root.spanId, 10n);

describe('joinLogEvents', () => {
  it('returns the very same array when the trace has no log events', () => {
    const spans = [root, chat];
    expect(joinLogEvents(spans)).toBe(spans);
  });

  it('makes each record an event of the span it names, in time order with the span events', () => {
    const input = [carrier(chat.spanId, 'gen_ai.choice', 70n), root, chat];
    input.push(carrier(chat.spanId, 'gen_ai.user.message', 20n));
    const out = joinLogEvents(input);
    expect(out.map(s => s.spanId)).toEqual([root.spanId, chat.spanId]);
    const joined = out.find(s => s.spanId === chat.spanId)!;
    expect(joined.events.map(e => e.name)).toEqual(['gen_ai.user.message', 'own', 'gen_ai.choice']);
    expect(joined.events[0]!.attributes.body).toEqual({ content: 'gen_ai.user.message' });
    // The input is not modified, and joining again changes nothing.
    expect(chat.events.map(e => e.name)).toEqual(['own']);
    expect(joinLogEvents(out)).toBe(out);
  });

  it('gives the root the records that name no span, or a span that never arrived', () => {
    const out = joinLogEvents([
      root,
      chat,
      carrier(NO_SPAN_ID, 'gen_ai.user.message', 5n),
      carrier('cccccccccccccccc', 'gen_ai.choice', 90n),
    ]);
    const joined = out.find(s => s.spanId === root.spanId)!;
    expect(joined.events.map(e => e.name)).toEqual(['gen_ai.user.message', 'own', 'gen_ai.choice']);
  });

  it('holds the records of a trace whose spans never arrived in one span of their own', () => {
    const out = joinLogEvents([
      carrier('cccccccccccccccc', 'gen_ai.choice', 9n),
      carrier('cccccccccccccccc', 'gen_ai.tool.message', 3n),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]!.parentSpanId).toBe('');
    expect(out[0]!.events.map(e => e.name)).toEqual(['gen_ai.tool.message', 'gen_ai.choice']);
  });

  it('finds the root on the way: the one findRoot finds among the joined spans', () => {
    const traces = [
      [carrier(chat.spanId, 'gen_ai.choice', 70n), root, chat],
      [root, chat, carrier(NO_SPAN_ID, 'gen_ai.user.message', 5n)],
      [chat, carrier(NO_SPAN_ID, 'gen_ai.user.message', 5n)],
      [carrier('cccccccccccccccc', 'gen_ai.choice', 9n)],
    ];
    for (const spans of traces) {
      const joined = joinLogEventsWithRoot(spans)!;
      expect(joined.spans).toEqual(joinLogEvents(spans));
      expect(joined.root).toBe(findRoot(joined.spans));
      expect(indexTrace(spans)).toMatchObject({ spans: joined.spans, root: joined.root });
    }
    const plain = [chat, root];
    expect(joinLogEventsWithRoot(plain)).toBeUndefined();
    expect(indexTrace(plain)).toMatchObject({ spans: plain, root });
    expect(indexTrace(plain).byId.get(chat.spanId)).toBe(chat);
  });
});

import { describe, expect, it } from 'vitest';
import { counting, parsedChars } from '../../test/helpers/counting-calls.js';
import type { Attributes, SpanDigest } from '../ingest/span-digest.js';
import { resolveToolHealth } from '../suite/tool-health-rule.js';
import { scoreTrace } from '../score/score-trace.js';
import { CONFIG_DEFAULTS } from '../../test/helpers/config-defaults.js';
import { indexedAttributes, parseMaybeJson } from './attribute-values.js';
import { extractToolCalls } from './extract-tool-calls.js';
import { findSessionEnd } from './find-session-end.js';
import { groupSpansByTrace } from './group-spans-by-trace.js';
import { INPUT_BOUNDS, inputBoundHits } from './input-bounds.js';
import { inspectTrace } from './inspect-trace.js';
import { pairingWork } from './pair-requests.js';
import { sessionTurnSpans } from './session-turn-spans.js';
import { SpanIndex } from './span-index.js';

/**
 * Traces built to cost normalization memory or time, as any sender can write them: long dotted
 * keys, parent chains that are deep, loop or repeat ids, wide spans and deep or huge JSON text.
 * Each case counts the work done (prefix characters hashed, parent lookups, characters handed to
 * `JSON.parse`), never the time taken: the machines that run this are shared and noisy.
 */

const TRACE = 'ab'.repeat(16);
const hex = (n: number) => n.toString(16).padStart(16, '0');

function span(n: number, parent: string, attributes: Attributes = {}, id = hex(n)): SpanDigest {
  return {
    traceId: TRACE,
    spanId: id,
    parentSpanId: parent,
    name: `step ${n % 3}`,
    kind: 1,
    startTimeUnixNano: BigInt(n) * 1_000n,
    endTimeUnixNano: BigInt(n) * 1_000n + 10n,
    attributes,
    events: [],
    statusCode: 0,
    statusMessage: '',
    serviceName: 'hostile',
    serviceVersion: '',
    deploymentEnvironment: '',
    scopeName: '',
  };
}

/** Characters of the strings added to any `Set` while `work` runs: the prefixes hashed. */
async function setCharsAdded(work: () => unknown): Promise<number> {
  let chars = 0;
  await counting(
    Set.prototype,
    'add',
    (value: unknown) => {
      if (typeof value === 'string') chars += value.length;
    },
    work,
  );
  return chars;
}

describe('indexed attributes of hostile keys', () => {
  it('hashes one prefix a key, however many dotted digits it holds', async () => {
    // 1,000 characters, within the bound: `a.0.0.0…`, 499 dots each followed by a digit.
    const key = `a${'.0'.repeat(499)}`;
    let found: unknown;
    const chars = await setCharsAdded(() => (found = indexedAttributes({ [key]: 'x' }, 'a')));
    expect(found).toEqual([{ [key.slice(4)]: 'x' }]);
    // Every prefix of the key (what it took before) is 249,500 characters hashed; one is 1.
    expect(chars).toBeLessThanOrEqual(key.length);
  });

  it('skips a key past the bound without hashing its prefixes, and counts it', async () => {
    const long = `llm.output_messages.0.message.${'x.0'.repeat(10_000)}`;
    const attributes: Attributes = { [long]: 'hidden', 'llm.output_messages.0.message.role': 'ai' };
    const before = inputBoundHits.longIndexedKeys;
    let found: unknown;
    const chars = await setCharsAdded(
      () => (found = indexedAttributes(attributes, 'llm.output_messages')),
    );
    expect(found).toEqual([{ 'message.role': 'ai' }]);
    expect(long.length).toBeGreaterThan(INPUT_BOUNDS.maxIndexedKeyChars);
    expect(inputBoundHits.longIndexedKeys - before).toBe(1);
    // Only the short key's prefix; the long key's 10,000 prefixes were about 300 MB of characters.
    expect(chars).toBeLessThanOrEqual('llm.output_messages'.length);
  });

  it('scans a span of 100,000 long dotted keys in work linear in their characters', async () => {
    const attributes: Attributes = {};
    let keyChars = 0;
    for (let i = 0; i < 100_000; i++) {
      const key = `k${i}${'.0'.repeat(i % 2 ? 400 : 600)}`;
      keyChars += key.length;
      attributes[key] = i;
    }
    const chars = await setCharsAdded(() => {
      for (const prefix of ['llm.input_messages', 'llm.output_messages', 'gen_ai.prompt'])
        expect(indexedAttributes(attributes, prefix)).toEqual([]);
    });
    // One short prefix a key within the bound, none for the others, and the scan made once.
    expect(chars).toBeLessThan(keyChars / 100);
  });
});

describe('JSON attribute text', () => {
  it('keeps text nested past the bound as text, unparsed, and counts it', async () => {
    const depth = INPUT_BOUNDS.maxJsonDepth;
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const before = inputBoundHits.deepJson;
    expect(await parsedChars(() => expect(parseMaybeJson(deep)).toBe(deep))).toBe(0);
    expect(inputBoundHits.deepJson - before).toBe(1);
    // At the bound it parses; brackets inside strings do not count.
    const atBound = `${'['.repeat(depth)}"${'{'.repeat(500)}"${']'.repeat(depth)}`;
    expect(parseMaybeJson(atBound)).not.toBe(atBound);
  });

  it('keeps text longer than the bound as text, unparsed, and counts it', async () => {
    const huge = `"${'a'.repeat(INPUT_BOUNDS.maxJsonChars)}"`;
    const before = inputBoundHits.longJson;
    expect(await parsedChars(() => expect(parseMaybeJson(huge)).toBe(huge))).toBe(0);
    expect(inputBoundHits.longJson - before).toBe(1);
  });

  it('scores a trace of 10 MB messages and 100,000-deep arguments without parsing them', async () => {
    const big = JSON.stringify([
      { role: 'user', parts: [{ type: 'text', content: 'x'.repeat(10_000_000) }] },
    ]);
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const spans = [
      span(1, '', {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.input.messages': big,
        'gen_ai.output.messages': big,
      }),
      span(2, hex(1), {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.arguments': deep,
        'gen_ai.tool.call.result': deep,
      }),
    ];
    const plan = { suites: [], rules: [], toolHealth: resolveToolHealth(CONFIG_DEFAULTS) };
    let run: Awaited<ReturnType<typeof scoreTrace>> | undefined;
    const chars = await parsedChars(async () => (run = await scoreTrace(TRACE, spans, plan)));
    expect(run!.state).toBe('scored');
    expect(run!.results[0]!.trace.toolSequence.map(c => c.name)).toEqual(['lookup']);
    expect(run!.diagnostics.map(d => d.code)).toContain('input_bounded');
    // None of the 40 MB of message text nor the 1.2 MB of nesting reached JSON.parse.
    expect(chars).toBeLessThan(10_000);
  });
});

describe('parent chains', () => {
  const plan = { suites: [], rules: [], toolHealth: resolveToolHealth(CONFIG_DEFAULTS) };
  // Agents, their tool spans and plain steps, in turn.
  const attributesOf = (i: number): Attributes =>
    i % 3 === 0
      ? { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': `agent ${i % 7}` }
      : i % 3 === 1
        ? { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': `tool ${i % 5}` }
        : {};
  // 20,000 spans each: twice the trace span cap of the assembly, and deeper than V8's default stack
  // lets a recursive walk go (about 11,000 frames), where one walk per span to a root (or around
  // a loop) would be 400 million lookups, against a bound of 3.8 million.
  const shapes: Array<[string, number, (i: number, n: number) => SpanDigest]> = [
    ['a chain 20,000 deep', 20_000, i => span(i + 1, i === 0 ? '' : hex(i), attributesOf(i))],
    ['a ring of 20,000', 20_000, (i, n) => span(i + 1, hex(i === 0 ? n : i), attributesOf(i))],
    ['20,000 spans each its own parent', 20_000, i => span(i + 1, hex(i + 1), attributesOf(i))],
    [
      '10,000 pairs, each the parent of the other',
      20_000,
      i => span(i + 1, hex(i % 2 ? i : i + 2), attributesOf(i)),
    ],
    ['20,000 roots', 20_000, i => span(i + 1, '', attributesOf(i))],
    // Its first copy counts (`isCounted`), the rest are walked past: a tool span, so it scores.
    ['20,000 spans with one id', 20_000, i => span(i + 1, '', attributesOf(i + 1), hex(7))],
  ];

  it.each(shapes)(
    '%s: every walk over parents ends in work linear in the spans, without recursing',
    async (_, n, make) => {
      const spans = Array.from({ length: n }, (_, i) => make(i, n));
      let lookups = 0;
      await counting(
        SpanIndex.prototype,
        'get',
        () => lookups++,
        async () => {
          const run = await scoreTrace(TRACE, spans, plan);
          expect(run.state).toBe('scored');
          expect(sessionTurnSpans(spans).length).toBeGreaterThan(0);
          expect(inspectTrace(TRACE, spans).toolCalls.length).toBeGreaterThan(0);
          expect(groupSpansByTrace(spans).size).toBe(1);
          expect(findSessionEnd(spans)).toBeUndefined();
        },
      );
      // Every walk up a chain stops at 64 hops or a span seen: at most 64 lookups a span in each of
      // the three passes (scoring, the held turn, inspect), where one walk per span to its root
      // would be 200 million on the deep chain. (Measured: 10 a span on the chain, 112 on self-loops.)
      expect(lookups).toBeLessThan(3 * 64 * n);
    },
    300_000,
  );
});

describe('pairing requests with runs that have no call id', () => {
  // Model spans each requesting a call without an id, and tool spans without ids (the shape of
  // OpenInference, LangSmith or Traceloop tools): pairing them by name examined every run for each
  // request, and every kept request for each next one (37 million candidates at 10,000 spans). Each
  // test counts the candidates examined (`pairingWork`), not time.
  const idless = (n: number, name: (i: number) => string) =>
    Array.from({ length: n }, (_, i) =>
      span(
        i + 1,
        i === 0 ? '' : hex(1),
        i % 2
          ? {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': `t${i % 5}`,
              'gen_ai.tool.call.arguments': `{"a":${i}}`,
            }
          : {
              'gen_ai.operation.name': 'chat',
              'gen_ai.output.messages': JSON.stringify([
                {
                  role: 'assistant',
                  parts: [{ type: 'tool_call', name: name(i), arguments: { a: i + 1 } }],
                },
              ]),
            },
      ),
    );
  const plan = { suites: [], rules: [], toolHealth: resolveToolHealth(CONFIG_DEFAULTS) };

  it('looks only at the runs of a request’s own tool: requests of tools that never ran cost nothing', async () => {
    const n = 10_000;
    const before = { steps: pairingWork.steps, hits: inputBoundHits.pairingSteps };
    // Every request looked through every run and kept request before (37 million candidates).
    const run = await scoreTrace(
      TRACE,
      idless(n, i => `u${i % 5}`),
      plan,
    );
    expect(pairingWork.steps - before.steps).toBeLessThan(n);
    expect(inputBoundHits.pairingSteps - before.hits).toBe(0);
    // 5,000 runs and 5,000 requests of tools that did not run.
    expect(run.results[0]!.trace.toolSequence).toHaveLength(n);
  });

  it('stops at its budget of candidates a trace, keeps the requests left, and says so', async () => {
    const n = 10_000;
    const half = n / 2;
    // Under an agent root, 4,999 id-less runs of one tool, then 5,000 model calls requesting it
    // with other arguments: every run started before every request, so none pairs and each
    // request examines them all.
    const spans = Array.from({ length: n }, (_, i) =>
      span(
        i + 1,
        i === 0 ? '' : hex(1),
        i === 0
          ? { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'root' }
          : i < half
            ? {
                'gen_ai.operation.name': 'execute_tool',
                'gen_ai.tool.name': 't',
                'gen_ai.tool.call.arguments': `{"a":${i}}`,
              }
            : {
                'gen_ai.operation.name': 'chat',
                'gen_ai.output.messages': JSON.stringify([
                  {
                    role: 'assistant',
                    parts: [{ type: 'tool_call', name: 't', arguments: { b: i } }],
                  },
                ]),
              },
      ),
    );
    const before = { steps: pairingWork.steps, hits: inputBoundHits.pairingSteps };
    const run = await scoreTrace(TRACE, spans, plan);
    const steps = pairingWork.steps - before.steps;
    // 25 million candidates unbounded.
    expect(steps).toBeLessThanOrEqual(INPUT_BOUNDS.maxPairingSteps);
    expect(inputBoundHits.pairingSteps - before.hits).toBe(1);
    expect(run.diagnostics.map(d => d.code)).toContain('input_bounded');
    // The runs and the requests left are all in the sequence: the bound drops no call.
    expect(run.results[0]!.trace.toolSequence).toHaveLength(n - 1);
  });

  it('pairs a trace of a few hundred such calls whole, within the budget', async () => {
    const before = { steps: pairingWork.steps, hits: inputBoundHits.pairingSteps };
    // Request i asks for the tool and arguments of run i + 1, which starts after it.
    const run = await scoreTrace(
      TRACE,
      idless(400, i => `t${(i + 1) % 5}`),
      plan,
    );
    expect(inputBoundHits.pairingSteps - before.hits).toBe(0);
    expect(pairingWork.steps - before.steps).toBeGreaterThan(0);
    expect(run.diagnostics.map(d => d.code)).not.toContain('input_bounded');
    // 200 runs, each paired with its request: 200 calls, not 400.
    expect(run.results[0]!.trace.toolSequence).toHaveLength(200);
  });
});

describe('lists of calls and results longer than a call can spread', () => {
  // JSON text within the length bound holds more entries than `push(...list)` takes as arguments
  // (about 120,000): the spread threw a RangeError, and the trace failed unscored.
  it("reads a legacy event's 200,000 requested calls (3.4 MB) and scores the trace", async () => {
    const message = JSON.stringify(Array.from({ length: 200_000 }, () => ({ toolName: 'a' })));
    expect(message.length).toBeLessThan(INPUT_BOUNDS.maxJsonChars);
    const model = span(1, '', { 'gen_ai.operation.name': 'chat' });
    model.events = [{ name: 'gen_ai.choice', timeUnixNano: 1n, attributes: { message } }];
    const plan = { suites: [], rules: [], toolHealth: resolveToolHealth(CONFIG_DEFAULTS) };
    const run = await scoreTrace(TRACE, [model], plan);
    expect(run.state).toBe('scored');
    expect(run.results[0]!.trace.toolSequence).toHaveLength(200_000);
  }, 120_000);

  it("reads an OpenInference request body's 160,000 tool results (4 MB)", () => {
    const body = JSON.stringify({
      messages: Array.from({ length: 160_000 }, () => ({ role: 'tool', id: '1' })),
    });
    expect(body.length).toBeLessThan(INPUT_BOUNDS.maxJsonChars);
    const llm = span(1, '', {
      'openinference.span.kind': 'LLM',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.tool_call_id': 'call_0',
      'input.value': body,
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': '1',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
    });
    expect(extractToolCalls([llm]).map(c => c.name)).toEqual(['lookup']);
  });
});

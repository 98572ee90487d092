import { beforeAll, describe, expect, it } from 'vitest';
import type { SpanDigest } from '../ingest/span-digest.js';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { inspectTrace } from '../normalize/inspect-trace.js';
import { loadSuite } from '../suite/load-suite.js';
import { resolveToolHealth } from '../suite/tool-health-rule.js';
import { CONFIG_DEFAULTS } from '../../test/helpers/config-defaults.js';
import { scoreTrace } from './score-trace.js';
import type { ScoringPlan, Suite } from './scoring-plan.js';

/**
 * How often `scoreTrace` walks a trace's spans, counted (not timed) on a real capture: a LangGraph
 * run of 21 spans (past 16, so spans by id sit in a map, built by a walk of its own). A walk is a
 * pass that reads the trace through to its last span: a loop, `map`, `filter`, building the index.
 * The trace is read once per question (its log events, its root, its spans by id, its ids: test
 * case and session, in one walk), then once per step that reads every span (the extractors, agent
 * spans, tool health's offered tools).
 */

const CAPTURE = new URL(
  '../../test/fixtures/otlp/captured-langgraph-1.7.3-openinference-4.1.1.otlp.json',
  import.meta.url,
).pathname;
const SUITE = new URL('../../config/suites/framework-captures.yaml', import.meta.url).pathname;
const TEST_CASE_KEY = 'spanscore.test_case.id';

const withoutTestCaseId = (span: SpanDigest): SpanDigest => ({
  ...span,
  attributes: Object.fromEntries(
    Object.entries(span.attributes).filter(([key]) => key !== TEST_CASE_KEY),
  ),
});

/**
 * The spans behind a proxy that counts the passes that reach the last span, and each span's
 * attributes behind one that counts the reads of each key.
 */
function counted(spans: readonly SpanDigest[]) {
  const reads = new Map<string, number>();
  const copies = spans.map(span => ({
    ...span,
    attributes: new Proxy(span.attributes, {
      get(target, key, receiver) {
        if (typeof key === 'string') reads.set(key, (reads.get(key) ?? 0) + 1);
        return Reflect.get(target, key, receiver) as unknown;
      },
    }),
  }));
  const last = String(copies.length - 1);
  let walks = 0;
  const proxy = new Proxy(copies, {
    get(target, key, receiver) {
      if (key === last) walks++;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return {
    spans: proxy as readonly SpanDigest[],
    walks: () => walks,
    /** Reads of `key` per span. */
    readsOf: (key: string) => (reads.get(key) ?? 0) / copies.length,
  };
}

describe('scoreTrace: walks over one trace', () => {
  let trace: { traceId: string; spans: SpanDigest[] };
  let production: SpanDigest[];
  let suite: Suite;
  const toolHealth = resolveToolHealth(CONFIG_DEFAULTS);

  beforeAll(async () => {
    const read = await readTraceFiles([CAPTURE]);
    const [traceId, spans] = [...groupSpansByTrace(read.spans)].find(([, s]) => s.length === 21)!;
    trace = { traceId, spans };
    // The same run as production traffic: no test case id.
    production = spans.map(withoutTestCaseId);
    suite = await loadSuite(SUITE);
  });

  // The ceilings are the counts measured when they were set; before the trace was indexed once
  // and its ids read in one walk (issue 57) they were 18, 29 and 39, and production traffic read
  // each test case id attribute of every span twice with a suite loaded.
  it.each([
    {
      what: 'a suite’s test case, its id on the root',
      plan: (): ScoringPlan => ({ suites: [suite], rules: [], toolHealth }),
      spans: () => trace.spans,
      walks: 7,
      state: 'scored',
    },
    {
      what: 'production traffic, tool health',
      plan: (): ScoringPlan => ({ suites: [], rules: [], toolHealth }),
      spans: () => production,
      walks: 8,
      state: 'scored',
    },
    {
      what: 'production traffic with a suite loaded, tool health',
      plan: (): ScoringPlan => ({ suites: [suite], rules: [], toolHealth }),
      spans: () => production,
      walks: 8,
      state: 'scored',
    },
  ])('walks the spans of $what at most $walks times', async ({ plan, spans, walks, state }) => {
    const scoring = plan();
    // Once first, so that what is built once per plan is not counted.
    await scoreTrace(trace.traceId, spans(), scoring);
    const count = counted(spans());
    const run = await scoreTrace(trace.traceId, count.spans, scoring);
    expect(run.state).toBe(state);
    expect(count.walks()).toBeLessThanOrEqual(walks);
    // The test case id is looked up once: each name read at most once a span, whoever asks.
    expect(count.readsOf(TEST_CASE_KEY)).toBeLessThanOrEqual(1);
    expect(count.readsOf('test_case.id')).toBeLessThanOrEqual(1);
  });

  it('leaves diagnostics of a trace with tool calls to inspect: scoring does not make them', async () => {
    // The test case id moved from the root to a child: `inspect` says so, the scored run does not.
    const root = trace.spans.find(s => s.parentSpanId === '')!;
    const child = trace.spans.find(s => s.parentSpanId === root.spanId)!;
    const moved = trace.spans.map(span => {
      const without = withoutTestCaseId(span);
      return span === child
        ? {
            ...without,
            attributes: { ...without.attributes, [TEST_CASE_KEY]: root.attributes[TEST_CASE_KEY]! },
          }
        : without;
    });
    expect(inspectTrace(trace.traceId, moved).diagnostics.map(d => d.code)).toEqual([
      'test_case_id_not_on_root',
    ]);
    const run = await scoreTrace(trace.traceId, moved, { suites: [suite], rules: [], toolHealth });
    expect(run.state).toBe('scored');
    expect(run.results[0]!.trace.toolSequence.length).toBeGreaterThan(0);
    expect(run.diagnostics).toEqual([]);
  });
});

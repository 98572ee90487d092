import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_SESSION_ID_CHARS } from '../../normalize/find-session-id.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from '../../normalize/find-test-case-id.js';
import { inspectionToJson, inspectTrace } from '../../normalize/inspect-trace.js';
import { recordFromRunRecord } from '../../record/record-test-cases.js';
import { renderCaseYaml } from '../../record/render-suite.js';
import { sessionRecordKey } from '../../results/run-record-key.js';
import { parseApiInput, timeParam } from './api-input.js';
import { inspectionOfRecord } from './inspection-of-record.js';
import { pendingRunRecord } from './pending-run-record.js';
import type { ResultsApiOptions } from './results-api-options.js';
import { withToolDiff } from './with-tool-diff.js';

/** Parts of one session a session's record lists (and `?part=` reaches). */
const MAX_SESSION_PARTS = 1000;
/** Parts looked up past part 1 for a session's list of parts (one store read each). */
const LISTED_PARTS = 20;

const tracesQuery = z
  .object({
    service: z.string().min(1).optional(),
    tool: z.string().min(1).optional(),
    outcome: z.enum(['ok', 'error', 'refused']).optional(),
    state: z.enum(['pending', 'scored', 'not_scored', 'failed', 'expired']).optional(),
    label: z.enum(['pass', 'fail']).optional(),
    from: timeParam.optional(),
    to: timeParam.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .regex(
        /^(\d{1,16}(-\d{1,16})?\.\d{1,6}|\d{1,16}:[0-9a-f]{32})$/,
        'expected a cursor from a previous page',
      )
      .optional(),
  })
  .strict();

// The trace list's filters that apply to a session's record, and a cursor of its keys.
const sessionsQuery = tracesQuery
  .pick({ service: true, label: true, from: true, to: true, limit: true })
  .extend({
    // `open`: the sessions held, not scored yet (or waiting to be scored again).
    state: z.enum(['scored', 'not_scored', 'failed', 'open']).optional(),
    cursor: z
      .string()
      .max(320)
      .regex(
        /^(\d{1,16}(-\d{1,16})?\.\d{1,6}|\d{1,16}:session(~[1-9]\d{0,5})?:.+)$/,
        'expected a cursor from a previous page',
      )
      .optional(),
  })
  .strict();

const sessionQuery = z
  .object({ part: z.coerce.number().int().min(1).max(MAX_SESSION_PARTS).default(1) })
  .strict();

const testCaseQuery = z
  .object({ args: z.enum(['exact', 'subset', 'ignore']).default('subset') })
  .strict();

const sessionParams = z.object({
  sessionId: z
    .string()
    .min(1)
    .max(MAX_SESSION_ID_CHARS, `expected at most ${MAX_SESSION_ID_CHARS} characters`),
});

const traceParams = z.object({
  traceId: z.string().regex(/^[0-9a-f]{32}$/, 'expected 32 lower-case hex digits'),
});

/**
 * Traces and sessions:
 * - `GET /api/v1/traces?service=&tool=&outcome=&state=&label=&from=&to=&limit=&cursor=`: recent
 *   traces, scored or not (and why not), newest first, with their tools and calls by outcome.
 * - `GET /api/v1/traces/<traceId>`: the run record (`pending` while buffered), 404 if none.
 * - `GET /api/v1/traces/<traceId>/test-case?args=subset`: the trace's test case as YAML (a
 *   `testCases` item, by `spanscore suite record`'s rules), for a scored trace; 404 otherwise.
 * - `GET /api/v1/traces/<traceId>/inspect`: what `spanscore inspect --format json` shows of the
 *   trace: read from its spans while it is buffered (`source: "spans"`), from its run record once
 *   scored (`source: "run record"`, see `inspectionOfRecord`); 404 when there is neither.
 * - `GET /api/v1/sessions?service=&state=&label=&from=&to=&limit=&cursor=`: recent sessions
 *   scored as one (a session test case), newest first, as the trace list shows traces.
 *   Each part of a session is its own row. `state=open`: the sessions the driver holds, not
 *   scored yet or waiting to be scored again, newest first: their turns so far, and when each
 *   will be scored unless another turn comes (`scoreAtMs`; `null` while a pass is under way; a
 *   session held after its pass failed: its let-go, memory driver).
 * - `GET /api/v1/sessions/<sessionId>?part=n`: a session's run record (part 1 unless `part`): its
 *   traces in turn order, its calls (each with its `turn`) and results, and `parts`: the parts
 *   of the session on record, 1 and on while each is found (at most 20 looked up); 404 if none.
 */
export function registerTraceRoutes(api: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  const retentionHours = options.retentionMs / 3_600_000;

  api.get('/traces', async request => {
    const { limit, cursor, ...filter } = parseApiInput(tracesQuery, request.query, 'query');
    return options.store.traces(traceListFilter(filter), limit, cursor);
  });

  api.get('/sessions', async request => {
    const { limit, cursor, state, ...rest } = parseApiInput(sessionsQuery, request.query, 'query');
    if (state === 'open') {
      const open = (await options.openSessions?.(limit)) ?? [];
      return {
        sessions: open.map(s => ({ ...s, state: 'open', scoreAtMs: s.scoreAtMs ?? null })),
        nextCursor: null,
      };
    }
    const filter = { ...rest, ...(state && { state }) };
    const page = await options.store.traces(
      { ...traceListFilter(filter), sessions: true },
      limit,
      cursor,
    );
    return { sessions: page.traces, nextCursor: page.nextCursor };
  });

  api.get('/sessions/:sessionId', async (request, reply) => {
    const { sessionId } = parseApiInput(sessionParams, request.params, 'path');
    const { part } = parseApiInput(sessionQuery, request.query, 'query');
    const record = await options.store.run(sessionRecordKey(sessionId, part));
    if (record)
      return {
        ...record,
        results: record.results.map(withToolDiff),
        parts: await partsOf(options.store, sessionId, part),
      };
    return reply.code(404).send({
      error: `no record of session ${JSON.stringify(sessionId)}${part > 1 ? ` part ${part}` : ''}: not scored yet (a session is scored sessions.idleMs after its latest trace), no session test case names it, or older than the retention (${retentionHours} h)`,
    });
  });

  api.get('/traces/:traceId/test-case', async (request, reply) => {
    const { traceId } = parseApiInput(traceParams, request.params, 'path');
    const { args } = parseApiInput(testCaseQuery, request.query, 'query');
    const record = await options.store.run(traceId);
    if (!record || record.state !== 'scored') {
      const state =
        record?.state ?? ((await options.pendingTrace(traceId)) ? 'pending' : undefined);
      return reply.code(404).send({
        error: state
          ? `trace ${traceId} is ${state.replace('_', ' ')}: only a scored trace has its tool calls recorded`
          : `no run record of trace ${traceId}`,
      });
    }
    return reply
      .type('application/yaml; charset=utf-8')
      .send(renderCaseYaml(recordFromRunRecord(record, args)));
  });

  api.get('/traces/:traceId/inspect', async (request, reply) => {
    const { traceId } = parseApiInput(traceParams, request.params, 'path');
    const record = await options.store.run(traceId);
    if (!record || record.state === 'pending') {
      const spans = await options.pendingSpans?.(traceId);
      if (spans?.length)
        return {
          source: 'spans',
          state: 'pending',
          ...inspectionToJson(
            inspectTrace(traceId, spans, {
              testCaseIdAttributes: options.testCaseIdAttributes ?? DEFAULT_TEST_CASE_ID_ATTRIBUTES,
            }),
          ),
        };
      if (!record)
        return reply.code(404).send({ error: `no spans or run record of trace ${traceId}` });
    }
    return inspectionOfRecord(record);
  });

  api.get('/traces/:traceId', async (request, reply) => {
    const { traceId } = parseApiInput(traceParams, request.params, 'path');
    const record = await options.store.run(traceId);
    if (record) return { ...record, results: record.results.map(withToolDiff) };
    const pending = await options.pendingTrace(traceId);
    if (pending) return pendingRunRecord(traceId, pending, options.storeContent ?? true, now());
    return reply.code(404).send({
      error: `no record of trace ${traceId}: never received here, or older than the retention (${retentionHours} h)`,
    });
  });
}

/**
 * The parts of a session on record: 1 and on, while each is found (a part's record is written
 * after the one before it, and the oldest go first), at most {@link LISTED_PARTS} past part 1;
 * `known`, a part the caller found, is always listed.
 */
async function partsOf(
  store: ResultsApiOptions['store'],
  sessionId: string,
  known: number,
): Promise<number[]> {
  const parts = new Set([known]);
  for (let part = 1; part <= 1 + LISTED_PARTS; part++) {
    if (part === known) continue;
    if (!(await store.run(sessionRecordKey(sessionId, part)))) {
      if (part > known) break;
      continue;
    }
    parts.add(part);
  }
  return [...parts].sort((a, b) => a - b);
}

/** A trace list query's filters as the store takes them: `from` and `to` as Unix ms. */
function traceListFilter<T extends { from?: number | undefined; to?: number | undefined }>({
  from,
  to,
  ...rest
}: T): Omit<T, 'from' | 'to'> & { fromUnixMs?: number; toUnixMs?: number } {
  return {
    ...rest,
    ...(from !== undefined && { fromUnixMs: from }),
    ...(to !== undefined && { toUnixMs: to }),
  };
}

import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SpanDigest } from '../ingest/span-digest.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from '../normalize/find-test-case-id.js';
import { inspectionToJson, inspectTrace } from '../normalize/inspect-trace.js';
import { bearerAccess } from '../ingest/bearer-access.js';
import type { TraceProgress } from '../queue/trace-readiness.js';
import type { ResultsStore } from '../results/results-store.js';
import { sessionRecordKey } from '../results/run-record-key.js';
import { MAX_SESSION_ID_CHARS } from '../normalize/find-session-id.js';
import type { RunRecord, StoredResult } from '../results/stored-result.js';
import { toolDiff, type ToolDiffStep } from '../report/tool-diff.js';
import { compareSummaries } from '../decide/compare-summaries.js';
import { compareTools } from '../decide/compare-tools.js';
import { summarizeResults } from '../decide/summarize-results.js';
import { SPANSCORE_VERSION } from '../version.js';
import { recordFromRunRecord } from '../record/record-test-cases.js';
import { renderCaseYaml } from '../record/render-suite.js';

/** What the results API reads. */
export interface ResultsApiOptions {
  store: ResultsStore;
  /** A trace buffered but not scored yet, or being scored, from the queue driver. */
  pendingTrace: (traceId: string) => Promise<(TraceProgress & { scoring?: boolean }) | undefined>;
  /** The spans of such a trace, for the inspect view; `undefined` once scored. */
  pendingSpans?: (traceId: string) => Promise<SpanDigest[] | undefined>;
  /**
   * The attributes a test case id is read from, for the inspect view of a buffered trace (the
   * loaded suites' and the defaults). @defaultValue the defaults
   */
  testCaseIdAttributes?: readonly string[];
  /**
   * Bearer tokens by scope: with any read token, `/api/v1` needs one (401 without or with an
   * unknown token, 403 with an ingest-only one). @defaultValue none
   */
  tokens?: { ingest: readonly string[]; read: readonly string[] };
  /** Origins a browser may read `/api/v1` from (CORS); none: no CORS headers. */
  corsOrigins?: readonly string[];
  /** Whether evaluation spans are exported, and the traces waiting for a retried export. */
  exportStatus?: () => Promise<{ enabled: boolean; waiting: number; oldestAgeSeconds: number }>;
  /** `results.storeContent`: run records keep tool-call arguments and results. @defaultValue true */
  storeContent?: boolean;
  /** For the page: a link to the user's trace UI, `{traceId}` replaced. */
  traceUrlTemplate?: string | undefined;
  retentionMs: number;
  driver: 'memory' | 'bullmq';
  now?: () => number;
}

/** The largest time a JavaScript `Date` holds (the year 275760), in Unix milliseconds. */
const MAX_TIME_MS = 8_640_000_000_000_000;

const time = z
  .union([
    z
      .string()
      .regex(/^\d{10,16}$/)
      .transform(Number),
    z.iso.datetime({ offset: true }).transform(s => Date.parse(s)),
  ])
  .refine(ms => Number.isFinite(ms) && ms <= MAX_TIME_MS, {
    message: `expected a time no later than ${MAX_TIME_MS} (Unix ms, the year 275760)`,
  });
const duration = z
  .string()
  .regex(/^\d{1,12}(m|h|d)$/, 'expected a duration such as 15m, 1h or 7d')
  .transform(
    s =>
      Number(s.slice(0, -1)) *
      { m: 60_000, h: 3_600_000, d: 86_400_000 }[s.at(-1) as 'm' | 'h' | 'd'],
  )
  .refine(ms => ms <= MAX_TIME_MS, {
    message: 'expected a duration shorter than 100 million days',
  });

const summaryQuery = z
  .object({
    window: duration.optional(),
    from: time.optional(),
    to: time.optional(),
    scorer: z.string().min(1).optional(),
    testCase: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
  })
  .strict();

const toolsQuery = z
  .object({
    window: duration.optional(),
    from: time.optional(),
    to: time.optional(),
    service: z.string().min(1).optional(),
    version: z.string().min(1).optional(),
    agent: z.string().min(1).optional(),
  })
  .strict();

const resultsQuery = z
  .object({
    scorer: z.string().min(1).optional(),
    label: z.enum(['pass', 'fail']).optional(),
    status: z.enum(['scored', 'skipped', 'failed']).optional(),
    testCase: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
    serviceVersion: z.string().min(1).optional(),
    traceId: z
      .string()
      .regex(/^[0-9a-f]{32}$/, 'expected 32 lower-case hex digits')
      .optional(),
    window: duration.optional(),
    from: time.optional(),
    to: time.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z
      .string()
      .regex(/^\d{1,16}(-\d{1,16})?(\.\d{1,6})?$/, 'expected a cursor from a previous page')
      .optional(),
  })
  .strict();

const tracesQuery = z
  .object({
    service: z.string().min(1).optional(),
    tool: z.string().min(1).optional(),
    outcome: z.enum(['ok', 'error', 'refused']).optional(),
    state: z.enum(['pending', 'scored', 'not_scored', 'failed', 'expired']).optional(),
    label: z.enum(['pass', 'fail']).optional(),
    from: time.optional(),
    to: time.optional(),
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

const compareQuery = z
  .object({
    by: z.enum(['version', 'window']),
    baseline: z.string().min(1).optional(),
    candidate: z.string().min(1).optional(),
    service: z.string().min(1).optional(),
    window: duration.optional(),
    baselineFrom: time.optional(),
    baselineTo: time.optional(),
    candidateFrom: time.optional(),
    candidateTo: time.optional(),
    alpha: z.coerce.number().gt(0).lt(1).default(0.05),
  })
  .strict()
  .superRefine((q, ctx) => {
    const need = (keys: Array<keyof typeof q>) => {
      for (const key of keys)
        if (q[key] === undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: `required with by=${q.by}` });
    };
    if (q.by === 'version') need(['baseline', 'candidate']);
    // by=window: the last `window` against the one before it, or four explicit times.
    else if (q.window === undefined)
      need(['baselineFrom', 'baselineTo', 'candidateFrom', 'candidateTo']);
  });

/** Results read for one side of a live comparison, at most. */
const MAX_COMPARED_RESULTS = 100_000;

const testCaseQuery = z
  .object({ args: z.enum(['exact', 'subset', 'ignore']).default('subset') })
  .strict();

// The trace list's filters that apply to a session's record, and a cursor of its keys.
const sessionsQuery = tracesQuery
  .pick({ service: true, label: true, from: true, to: true, limit: true })
  .extend({
    state: z.enum(['scored', 'not_scored', 'failed']).optional(),
    cursor: z
      .string()
      .max(300)
      .regex(
        /^(\d{1,16}(-\d{1,16})?\.\d{1,6}|\d{1,16}:session:.+)$/,
        'expected a cursor from a previous page',
      )
      .optional(),
  })
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
 * The JSON API over the results store, on the receiver's port:
 * - `GET /api/v1/summary?window=1h` (or `from`/`to`: Unix ms or ISO 8601): counts, pass rate, mean
 *   score and judge cost per scorer, per test case or rule and per service; a per-minute timeline;
 *   traces not scored by reason; `export`: whether evaluation spans are exported and the backlog.
 * - `GET /api/v1/tools?window=1h[&service=][&version=][&agent=]` (or `from`/`to`): per service and
 *   tool, the calls, failed, refused, invalid arguments, never-offered and repeated calls, their
 *   rates and the p50/p95 duration, with a per-minute trend (see `summarizeTools`).
 * - `GET /api/v1/results?scorer=&label=&status=&testCase=&service=&traceId=&from=&to=&limit=&cursor=`
 *   (or `window=1h` for the last hour): results newest first, `nextCursor` for the next page.
 * - `GET /api/v1/compare?by=version&baseline=V1&candidate=V2[&service=S][&window=1h]` (versions
 *   are the evaluated traces' `service.version`), or
 *   `by=window&window=1h` (the last hour against the hour before), or
 *   `by=window&baselineFrom=&baselineTo=&candidateFrom=&candidateTo=`: the comparison `spanscore compare` makes of two run summaries,
 *   per test case or rule × scorer, from the stored results (`truncated` when a side had more
 *   than 100,000); and `tools`: each tool whose error or invalid-argument rate is compared, with
 *   the verdict (see `compareTools`).
 * - `GET /api/v1/traces?service=&tool=&outcome=&state=&label=&from=&to=&limit=&cursor=`: recent
 *   traces, scored or not (and why not), newest first, with their tools and calls by outcome.
 * - `GET /api/v1/traces/<traceId>`: the run record (`pending` while buffered), 404 if none.
 * - `GET /api/v1/sessions?service=&state=&label=&from=&to=&limit=&cursor=`: recent sessions
 *   scored as one (a session test case), newest first, as the trace list shows traces.
 * - `GET /api/v1/sessions/<sessionId>`: a session's run record: its traces in turn order, its
 *   calls (each with its `turn`) and results; 404 if none.
 * - `GET /api/v1/traces/<traceId>/test-case?args=subset`: the trace's test case as YAML (a
 *   `testCases` item, by `spanscore suite record`'s rules), for a scored trace; 404 otherwise.
 * - `GET /api/v1/traces/<traceId>/inspect`: what `spanscore inspect --format json` shows of the
 *   trace: read from its spans while it is buffered (`source: "spans"`), from its run record once
 *   scored (`source: "run record"`: the spans are gone, so the tools offered and the model calls
 *   are `null`, and conventions are counted from the calls kept); 404 when there is neither.
 * - `GET /api/v1/config`: what the page needs (trace link template, retention, driver).
 *
 * A bad query parameter is a 400 naming it; with read tokens, a request without one is a 401 (with
 * `WWW-Authenticate: Bearer`) and one with an ingest-only token a 403. CORS only for
 * `corsOrigins`. Register it inside `registerResultsRoutes`, which adds the security headers and
 * the loopback-only rule.
 */
export function registerResultsApi(app: FastifyInstance, options: ResultsApiOptions): void {
  const now = options.now ?? Date.now;
  const authorized = bearerAccess(options.tokens ?? { ingest: [], read: [] }, 'read');

  // A scope of its own: its auth hook and JSON error answers apply to /api/v1 only.
  void app.register(
    async api => {
      if (options.corsOrigins?.length)
        await api.register(cors, {
          origin: [...options.corsOrigins],
          methods: ['GET'],
          allowedHeaders: ['authorization'],
          maxAge: 600,
        });
      api.addHook('onRequest', async (request, reply) => {
        if (request.method === 'OPTIONS') return; // a CORS preflight carries no token
        const access = authorized(request.headers.authorization);
        if (!access.allowed) {
          if (access.status === 401) reply.header('www-authenticate', 'Bearer');
          await reply.code(access.status).send({ error: access.message });
        }
      });
      api.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
        const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) request.log.error(error);
        return reply
          .code(status)
          .send({ error: status === 500 ? 'internal error' : error.message });
      });
      routes(api);
    },
    { prefix: '/api/v1' },
  );

  const parse = <T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> => {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const message = result.error.issues
      .map(issue =>
        issue.code === 'unrecognized_keys'
          ? `unknown ${what} parameter(s) ${issue.keys.map(k => `"${k}"`).join(', ')}`
          : `${what} parameter "${issue.path.join('.')}": ${issue.message}`,
      )
      .join('; ');
    throw Object.assign(new Error(message), { statusCode: 400 });
  };

  /** The window a query names: `from`/`to`, else the `window` (default 1 h) up to now. */
  const windowOf = (q: { window?: number; from?: number; to?: number }) => {
    const to = q.to ?? now();
    const from = q.from ?? to - (q.window ?? 3_600_000);
    if (from > to) throw Object.assign(new Error('query: from is after to'), { statusCode: 400 });
    return { from, to };
  };

  const routes = (api: FastifyInstance): void => {
    api.get('/config', () => ({
      driver: options.driver,
      retentionHours: options.retentionMs / 3_600_000,
      traceUrlTemplate: options.traceUrlTemplate ?? null,
      storeContent: options.storeContent ?? true,
    }));

    api.get('/summary', async request => {
      const q = parse(summaryQuery, request.query, 'query');
      const { from, to } = windowOf(q);
      const { scorer, testCase, service } = q;
      const [summary, exportStatus] = await Promise.all([
        options.store.summary(Math.max(from, now() - options.retentionMs), to, {
          ...(scorer && { scorer }),
          ...(testCase && { testCase }),
          ...(service && { service }),
        }),
        options.exportStatus?.() ?? { enabled: true, waiting: 0, oldestAgeSeconds: 0 },
      ]);
      // The range read, so the page draws its timeline without parsing durations itself.
      return { ...summary, range: { fromUnixMs: from, toUnixMs: to }, export: exportStatus };
    });

    api.get('/tools', async request => {
      const q = parse(toolsQuery, request.query, 'query');
      const { from, to } = windowOf(q);
      const { service, version, agent } = q;
      return options.store.tools(Math.max(from, now() - options.retentionMs), to, {
        ...(service && { service }),
        ...(version && { version }),
        ...(agent && { agent }),
      });
    });

    api.get('/compare', async request => {
      const q = parse(compareQuery, request.query, 'query');
      const oldest = now() - options.retentionMs;
      // Each side reads its time range with no other filter and keeps what matches here: the
      // Redis store scans a bounded number of entries per page: a selective filter could
      // exhaust with results still to come.
      const read = async (fromUnixMs: number, toUnixMs?: number) => {
        const results: StoredResult[] = [];
        let cursor: string | undefined;
        do {
          const page = await options.store.results(
            { fromUnixMs, ...(toUnixMs !== undefined && { toUnixMs }) },
            500,
            cursor,
          );
          results.push(...page.results);
          cursor = page.nextCursor ?? undefined;
        } while (cursor && results.length < MAX_COMPARED_RESULTS);
        return { results, truncated: cursor !== undefined };
      };
      const inService = (r: StoredResult) => q.service === undefined || r.serviceName === q.service;
      let sides: Array<{ label: Record<string, string>; results: StoredResult[] }>;
      let truncated: boolean;
      const service = q.service ? { service: q.service } : {};
      let tools: ReturnType<typeof compareTools>;
      if (q.by === 'version') {
        const from = Math.max(oldest, now() - (q.window ?? options.retentionMs));
        const [baseTools, candidateTools] = await Promise.all(
          [q.baseline!, q.candidate!].map(version =>
            options.store.tools(from, now(), { ...service, version }),
          ),
        );
        tools = compareTools(baseTools!.tools, candidateTools!.tools, q.alpha);
        const window = await read(from);
        truncated = window.truncated;
        sides = [q.baseline!, q.candidate!].map(version => ({
          label: { 'service.version': version },
          results: window.results.filter(r => inService(r) && r.serviceVersion === version),
        }));
      } else {
        // `window`: the last so long against the same time before it, for a side given no times.
        const at = now();
        const lastWindow =
          q.window === undefined
            ? undefined
            : {
                baseline: [at - 2 * q.window, at - q.window] as const,
                candidate: [at - q.window, at] as const,
              };
        const ranges = (['baseline', 'candidate'] as const).map(side => {
          const [from, to] =
            lastWindow && q[`${side}From`] === undefined
              ? lastWindow[side]
              : [q[`${side}From`]!, q[`${side}To`]!];
          if (from > to)
            throw Object.assign(new Error(`query: ${side}From is after ${side}To`), {
              statusCode: 400,
            });
          return [from, to] as const;
        });
        const sideReads = await Promise.all(
          ranges.map(([from, to]) => read(Math.max(oldest, from), to)),
        );
        const [baseTools, candidateTools] = await Promise.all(
          ranges.map(([from, to]) => options.store.tools(Math.max(oldest, from), to, service)),
        );
        tools = compareTools(baseTools!.tools, candidateTools!.tools, q.alpha);
        truncated = sideReads.some(r => r.truncated);
        sides = sideReads.map((side, i) => ({
          label: {
            from: new Date(ranges[i]![0]).toISOString(),
            to: new Date(ranges[i]![1]).toISOString(),
          },
          results: side.results.filter(inService),
        }));
      }
      const [baseline, candidate] = sides.map(side =>
        summarizeResults(side.results, {
          suite: q.service ?? '(every service)',
          createdAt: new Date(now()),
          labels: side.label,
          spanscoreVersion: SPANSCORE_VERSION,
        }),
      );
      const report = compareSummaries(baseline!, candidate!, { alpha: q.alpha });
      return { by: q.by, service: q.service ?? null, truncated, ...report, tools };
    });

    api.get('/results', async request => {
      const q = parse(resultsQuery, request.query, 'query');
      const { limit, cursor, window, from: fromQuery, to, ...rest } = q;
      // `window`: the last so long, unless `from` says otherwise.
      const from = fromQuery ?? (window !== undefined ? now() - window : undefined);
      const page = await options.store.results(
        {
          ...rest,
          ...(from !== undefined && { fromUnixMs: from }),
          ...(to !== undefined && { toUnixMs: to }),
        },
        limit,
        cursor,
      );
      return { ...page, results: page.results.map(withDiff) };
    });

    api.get('/traces', async request => {
      const { limit, cursor, ...filter } = parse(tracesQuery, request.query, 'query');
      return options.store.traces(traceListFilter(filter), limit, cursor);
    });

    api.get('/sessions', async request => {
      const { limit, cursor, ...filter } = parse(sessionsQuery, request.query, 'query');
      const page = await options.store.traces(
        { ...traceListFilter(filter), sessions: true },
        limit,
        cursor,
      );
      return { sessions: page.traces, nextCursor: page.nextCursor };
    });

    api.get('/sessions/:sessionId', async (request, reply) => {
      const { sessionId } = parse(sessionParams, request.params, 'path');
      const record = await options.store.run(sessionRecordKey(sessionId));
      if (record) return { ...record, results: record.results.map(withDiff) };
      return reply.code(404).send({
        error: `no record of session ${JSON.stringify(sessionId)}: not scored yet (a session is scored sessions.idleMs after its latest trace), no session test case names it, or older than the retention (${options.retentionMs / 3_600_000} h)`,
      });
    });

    api.get('/traces/:traceId/test-case', async (request, reply) => {
      const { traceId } = parse(traceParams, request.params, 'path');
      const { args } = parse(testCaseQuery, request.query, 'query');
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
      const { traceId } = parse(traceParams, request.params, 'path');
      const record = await options.store.run(traceId);
      if (!record || record.state === 'pending') {
        const spans = await options.pendingSpans?.(traceId);
        if (spans?.length)
          return {
            source: 'spans',
            state: 'pending',
            ...inspectionToJson(
              inspectTrace(traceId, spans, {
                testCaseIdAttributes:
                  options.testCaseIdAttributes ?? DEFAULT_TEST_CASE_ID_ATTRIBUTES,
              }),
            ),
          };
        if (!record)
          return reply.code(404).send({ error: `no spans or run record of trace ${traceId}` });
      }
      return inspectionOfRecord(record);
    });

    api.get('/traces/:traceId', async (request, reply) => {
      const { traceId } = parse(traceParams, request.params, 'path');
      const record = await options.store.run(traceId);
      if (record) return { ...record, results: record.results.map(withDiff) };
      const pending = await options.pendingTrace(traceId);
      if (pending) {
        const waiting: RunRecord = {
          traceId,
          state: 'pending',
          reason: pending.scoring
            ? 'received; being scored'
            : pending.rootEnded
              ? 'received; its root span ended: waiting for late spans to settle'
              : 'received; waiting for its root span to end',
          testCaseId: null,
          testCaseIdAttribute: null,
          serviceName: '',
          serviceVersion: null,
          deploymentEnvironment: null,
          diagnostics: [],
          matched: [],
          awaitingJudge: [],
          receivedAtUnixMs: pending.firstSeenMs || null,
          updatedAtUnixMs: pending.lastSeenMs || now(),
          export: null,
          toolCalls: [],
          contentKept: options.storeContent ?? true,
          results: [],
        };
        return waiting;
      }
      return reply.code(404).send({
        error: `no record of trace ${traceId}: never received here, or older than the retention (${options.retentionMs / 3_600_000} h)`,
      });
    });
  };
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

/** A result as the API returns it: with the expected-vs-actual tool diff when it expects tools. */
function withDiff(r: StoredResult): StoredResult & { toolDiff: ToolDiffStep[] | null } {
  return { ...r, toolDiff: r.expectedTools ? toolDiff(r.expectedTools, r.toolSequence) : null };
}

/**
 * The inspect view of a trace from its run record, once its spans are gone: the conventions are
 * counted from the calls kept (distinct spans per extractor and source), and what only the spans
 * tell (the tools offered, the model calls, whether the id is on the root span) is `null`.
 */
function inspectionOfRecord(record: RunRecord): Record<string, unknown> {
  const conventions = new Map<string, { executed: Set<string>; requested: Set<string> }>();
  for (const call of record.toolCalls) {
    let c = conventions.get(call.convention);
    if (!c) conventions.set(call.convention, (c = { executed: new Set(), requested: new Set() }));
    c[call.source].add(call.spanId);
  }
  return {
    source: 'run record',
    state: record.state,
    traceId: record.traceId,
    spans: null,
    root: null,
    testCaseId: record.testCaseId,
    testCaseIdAttribute: record.testCaseIdAttribute,
    testCaseIdOnRoot: null,
    modelCalls: null,
    conventions: [...conventions].map(([id, c]) => ({
      id,
      executedSpans: c.executed.size,
      requestedSpans: c.requested.size,
    })),
    toolCalls: record.toolCalls,
    availableTools: null,
    diagnostics: record.diagnostics,
  };
}

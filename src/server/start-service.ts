import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Config } from '../config/config-schema.js';
import { resolveAccess } from '../config/resolve-access.js';
import { loadToolSchemas } from '../config/load-tool-schemas.js';
import { exportTargetLine, resolveExport } from '../config/resolve-export.js';
import { probeEndpoint } from '../emit/probe-endpoint.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import type { EvaluationExporter } from '../emit/otlp-evaluation-exporter.js';
import { DEFAULT_DECODE_LIMITS } from '../ingest/decode-limits.js';
import { metricsExposition } from '../ingest/metrics-exposition.js';
import { createOtlpHttpReceiver } from '../ingest/otlp-http-receiver.js';
import { createRefusalTally } from '../ingest/refusal-tally.js';
import { createQueueDriver } from '../queue/create-queue-driver.js';
import { isExportGiveUp } from '../queue/export-retry.js';
import type { ResultSink } from '../score/result-sink.js';
import { planTestCaseIdAttributes } from '../score/scoring-plan.js';
import { registerResultsRoutes } from '../ui/register-results-routes.js';
import type { TraceResult } from '../score/trace-run.js';
import type { ScoringRuntime } from './scoring-runtime.js';
import { rateLimitedLog } from '../log/rate-limited-log.js';
import { createServiceMetrics } from './service-metrics.js';
import { learnsSchemas, schemaSourcesOf } from './schema-learning.js';
import { bearerAccess } from '../ingest/bearer-access.js';
import { sendAccessRefusal } from '../ingest/send-access-refusal.js';

/** What runs: the receiver with workers (`serve`), the receiver alone, or workers alone. */
export interface ServiceRole {
  receiver: boolean;
  workers: boolean;
}

/** A running service. */
export interface Service {
  /** The receiver's `/v1/traces` URL, when it runs. */
  url: string | undefined;
  /** The results page (`/ui/`) on the receiver's port, when it runs. */
  uiUrl: string | undefined;
  /** `/metrics`: on the receiver's port, or a worker's `worker.metricsPort`. */
  metricsUrl: string | undefined;
  driver: 'memory' | 'bullmq';
  /** Stops taking traffic, finishes or hands back work, flushes the exporter, closes Redis. */
  close(): Promise<void>;
}

/** Injectable parts, for the demo and tests. */
export interface ServiceHooks {
  log?: (line: string) => void;
  /**
   * Hears every result with outcomes, after its evaluation spans were exported (at once when
   * export is off).
   */
  onResult?: (result: TraceResult) => void;
  /** Replaces the OTLP evaluation-span exporter. */
  exporter?: EvaluationExporter;
  /** More result sinks, after the built-in ones. */
  sinks?: readonly ResultSink[];
}

/**
 * Starts spanscore as a service from a validated config: the queue driver (`memory` in this
 * process, or `bullmq` on Redis, where receivers and workers can run in separate processes on any
 * hosts), the scoring runtime (suites, rules, judge, result sinks) when this process has workers,
 * and the OTLP/HTTP receiver when it has the receiver role, with the results API (`/api/v1`) and
 * page (`/ui/`) on its port. `close()` shuts down in order: the
 * receiver stops accepting and finishes its requests, the driver's workers finish or hand back
 * their traces, the result sinks flush; all within `shutdownDeadlineMs`.
 */
export async function startService(
  config: Readonly<Config>,
  role: ServiceRole,
  hooks: ServiceHooks = {},
): Promise<Service> {
  const log = hooks.log ?? (line => process.stderr.write(`${line}\n`));
  // Read and checked before anything starts: a bad file stops start-up with what was wrong.
  const givenSchemas = await loadToolSchemas(config.toolHealth.schemas);
  // The jobs gauge reads the driver at each scrape; the driver is created right after.
  const counts: {
    of?: () => Promise<Record<string, number>>;
    backlog?: ExportBacklog['stats'];
  } = {};
  const metrics = createServiceMetrics(
    () => counts.of?.() ?? Promise.resolve({}),
    () => counts.backlog?.() ?? Promise.resolve({ waiting: 0, oldestAgeSeconds: 0 }),
  );
  const warnOnce = rateLimitedLog(log);
  const driver = await createQueueDriver(config, role, {
    log,
    onAdmissionRefused(reason, message) {
      metrics.admissionRefusals.inc({ reason });
      warnOnce(
        `refused:${reason}`,
        () => `spanscore: refusing traces (503/429, Retry-After): ${message}`,
      );
    },
    onTraceExpired(traceId, reason) {
      // A job also finds nothing of a trace another job scored long ago: its run record says so.
      void driver.results
        .run(traceId)
        .then(async record => {
          if (record && record.state !== 'pending') return;
          metrics.tracesExpired.inc();
          warnOnce('expired', () => `spanscore: trace ${traceId} expired unscored: ${reason}`);
          if (config.results.write) await driver.results.recordExpired(traceId, reason);
        })
        .catch((e: unknown) => log(`spanscore: results store: ${(e as Error).message}`));
    },
    onSessionEvicted() {
      metrics.sessionsEvicted.inc();
    },
    // The drivers say it in the log, at most once a minute.
    onSessionRefused(_sessionId, _traceId, reason) {
      metrics.sessionsRefused.inc({ reason });
    },
    onSessionTurnDropped(_sessionId, _traceId, reason) {
      metrics.sessionTurnsDropped.inc({ reason });
    },
    onSessionFailed() {
      metrics.sessionFailures.inc();
    },
    onLateSpans(traceId, count) {
      metrics.lateSpans.inc(count);
      log(
        `spanscore: ${count} late span(s) for trace ${traceId}${config.assembly.rescoreLateSpans ? ': rescoring' : ''}`,
      );
    },
    onTraceFailed(traceId, phase, error) {
      metrics.traceFailures.inc();
      const exportGaveUp = isExportGiveUp(error);
      log(
        exportGaveUp
          ? `spanscore: gave up exporting the evaluation spans of trace ${traceId} (its results are stored): ${(error as Error).message}`
          : `spanscore: could not score trace ${traceId}${phase === 'llm' ? ' (LLM scorers)' : ''}: ${(error as Error).message}`,
      );
      // Given up: the trace leaves the export backlog and its run record says why: scored, with
      // its export failed, or failed.
      const report = (e: unknown): void => log(`spanscore: results store: ${(e as Error).message}`);
      driver.exportBacklog.settled(traceId).catch(report);
      if (!config.results.write) return;
      (exportGaveUp
        ? driver.results.recordExport(traceId, {
            state: 'failed',
            error: error instanceof Error ? error.message : String(error),
          })
        : driver.results.recordFailure(traceId, phase, error)
      ).catch(report);
    },
  });
  const access = resolveAccess(config);
  const exportTarget = resolveExport(config, process.env, role);
  if (role.workers && !hooks.exporter) {
    if (!exportTarget.enabled) log(`spanscore: ${exportTarget.reason}`);
    else {
      log(`spanscore: ${exportTargetLine(exportTarget)}`);
      // Said now rather than at the first failed export, minutes later.
      void probeEndpoint(exportTarget.url).then(problem => {
        if (problem)
          log(
            `spanscore: warning: nothing answers at ${exportTarget.url} (${problem}): evaluation spans wait and are retried until it does; set OTEL_EXPORTER_OTLP_ENDPOINT, or SPANSCORE_EXPORT=false`,
          );
      });
    }
  }
  if (role.receiver) for (const note of access.notes) log(note);

  counts.of = () => driver.jobCounts();
  counts.backlog = () => driver.exportBacklog.stats();

  // Only processes that score load the suites, the judge, the exporter and the scorers: a
  // receiver-only process (serve --no-worker) stays small.
  let scoring: ScoringRuntime | undefined;
  try {
    scoring = role.workers
      ? await (
          await import('./scoring-runtime.js')
        ).createScoringRuntime(config, {
          metrics,
          log,
          hooks,
          judgeState: driver.judgeState,
          exportBacklog: driver.exportBacklog,
          results: driver.results,
          exportTarget,
          schemas: driver.schemas,
          givenSchemas,
        })
      : undefined;
  } catch (error) {
    // An invalid suite or rule: close the driver's connections so the process can exit.
    await driver.close(0);
    throw error;
  }
  if (scoring) driver.startWorkers(scoring);
  else if (config.suites.length > 0 || config.rules.length > 0)
    log(
      'spanscore: receiver only: suites and rules are loaded and scored by the workers (spanscore worker), not here',
    );

  let url: string | undefined;
  let uiUrl: string | undefined;
  let app: ReturnType<typeof createOtlpHttpReceiver> | undefined;
  if (driver.sink) {
    // The requests this receiver refuses, for the page that it serves on the same port: each
    // receiver process counts its own.
    const refusals = createRefusalTally();
    app = createOtlpHttpReceiver({
      sink: driver.sink,
      maxBodyBytes: config.receiver.maxBodyBytes,
      limits: {
        maxSpans: config.receiver.maxSpansPerRequest,
        maxItems: config.receiver.maxItemsPerRequest,
        maxRejectedDetails: DEFAULT_DECODE_LIMITS.maxRejectedDetails,
      },
      log,
      tokens: { ingest: access.ingestTokens, read: access.readTokens },
      ready: () => driver.ready(),
      metrics,
      onRefused: refusals.record,
    });
    registerResultsRoutes(app, {
      store: driver.results,
      pendingTrace: traceId => driver.pendingTrace(traceId),
      pendingSpans: traceId => driver.pendingSpans(traceId),
      ...(driver.openSessions && { openSessions: driver.openSessions.bind(driver) }),
      ...(scoring && { testCaseIdAttributes: planTestCaseIdAttributes(scoring.plan) }),
      access,
      corsOrigins: config.results.corsOrigins,
      exportStatus: async () => ({
        enabled: exportTarget.enabled || hooks.exporter !== undefined,
        ...(await driver.exportBacklog.stats()),
      }),
      refusedRequests: refusals.refused,
      traceUrlTemplate: config.results.traceUrlTemplate,
      // Whole milliseconds: Redis's PX takes no fraction (1.1 hours is 3,960,000.0000000005 ms).
      retentionMs: Math.ceil(config.results.retentionHours * 3_600_000),
      storeContent: config.results.storeContent,
      driver: driver.name,
      schemaSources: schemaSourcesOf(
        givenSchemas,
        learnsSchemas(config) ? driver.schemas : undefined,
      ),
    });
    await app.listen({ port: config.receiver.port, host: config.receiver.host });
    const origin = originOf(app.server.address() as AddressInfo);
    url = `${origin}/v1/traces`;
    uiUrl = `${origin}/ui/`;
  }

  // A worker-only process serves its metrics on a port of its own, when asked.
  let metricsApp: FastifyInstance | undefined;
  let metricsUrl = url?.replace(/\/v1\/traces$/, '/metrics');
  if (!app && config.worker.metricsPort !== undefined) {
    metricsApp = Fastify();
    metricsApp.get('/healthz', () => ({ status: 'ok' }));
    const readable = bearerAccess({ ingest: access.ingestTokens, read: access.readTokens }, 'read');
    metricsApp.get('/metrics', async (request, reply: FastifyReply) => {
      const access = readable(request.headers.authorization);
      if (!access.allowed) return sendAccessRefusal(reply, access);
      const { contentType, body } = await metricsExposition(
        metrics.registry,
        request.headers.accept,
      );
      return reply.type(contentType).send(body);
    });
    await metricsApp.listen({ port: config.worker.metricsPort, host: config.receiver.host });
    metricsUrl = `${originOf(metricsApp.server.address() as AddressInfo)}/metrics`;
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    uiUrl,
    metricsUrl,
    driver: driver.name,
    close() {
      closing ??= (async () => {
        // Requests waiting for room are refused (503) now: the server waits for those under way.
        driver.sink?.stopWaiting?.();
        // Stop taking traffic first: nothing accepted after this point. Requests under way get a
        // part of the deadline to finish, then their connections are closed: a client that sends
        // a body and stalls would otherwise hold the server open past the deadline, and every
        // trace accepted before it would end unscored. (One cut off after it was accepted, and
        // before its answer, is sent again by its exporter: duplicates are dropped.)
        if (app) await closeWithin(app, Math.min(5000, config.shutdownDeadlineMs / 4));
        await metricsApp?.close();
        const { unfinished } = await driver.close(config.shutdownDeadlineMs);
        if (unfinished)
          log(`spanscore: ${unfinished} trace(s) unfinished at the shutdown deadline`);
        await scoring?.shutdown();
      })();
      return closing;
    },
  };
}

/** `app.close()`, its connections still open after `graceMs` closed (in-flight requests cut). */
async function closeWithin(app: FastifyInstance, graceMs: number): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}

function originOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

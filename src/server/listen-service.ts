import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Config } from '../config/config-schema.js';
import { resolveAccess } from '../config/resolve-access.js';
import { bearerAccess } from '../ingest/bearer-access.js';
import { DEFAULT_DECODE_LIMITS } from '../ingest/decode-limits.js';
import { metricsExposition, type MetricsExposition } from '../ingest/metrics-exposition.js';
import { createOtlpHttpReceiver } from '../ingest/otlp-http-receiver.js';
import { createRefusalTally } from '../ingest/refusal-tally.js';
import { sendAccessRefusal } from '../ingest/send-access-refusal.js';
import { registerResultsRoutes } from '../ui/register-results-routes.js';
import { learnsSchemas, schemaSourcesOf } from './schema-learning.js';
import type { ServiceCore } from './service-core.js';
import type { Service, ServiceRole } from './service.js';

/**
 * The service's HTTP side over `core`: the OTLP/HTTP receiver (when the driver has a sink) with
 * the results API (`/api/v1`), page (`/ui/`) and `/metrics` on its port, or, in a worker-only
 * process, `/metrics` and `/healthz` on `worker.metricsPort` when set. `close()` shuts down in
 * order: the receiver stops accepting and finishes its requests (cut after a part of the
 * deadline), the driver's workers finish or hand back their traces within `shutdownDeadlineMs`,
 * then `core.shutdown()`.
 */
export async function listenService(
  config: Readonly<Config>,
  role: ServiceRole,
  core: ServiceCore,
  log: (line: string) => void,
): Promise<Service> {
  const { driver, metrics } = core;
  const access = resolveAccess(config);
  if (role.receiver) for (const note of access.notes) log(note);
  const exposition = async (accept: string | undefined): Promise<MetricsExposition> => {
    const own = await metricsExposition(metrics.registry, accept);
    return core.moreMetrics ? joinExpositions(own, await core.moreMetrics(accept)) : own;
  };

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
      exposition,
      onRefused: refusals.record,
    });
    registerResultsRoutes(app, {
      store: driver.results,
      pendingTrace: traceId => driver.pendingTrace(traceId),
      pendingSpans: traceId => driver.pendingSpans(traceId),
      ...(driver.openSessions && { openSessions: driver.openSessions.bind(driver) }),
      ...(core.testCaseIdAttributes && { testCaseIdAttributes: core.testCaseIdAttributes }),
      access,
      corsOrigins: config.results.corsOrigins,
      exportStatus: async () => ({
        enabled: core.exportEnabled,
        ...(await driver.exportBacklog.stats()),
      }),
      refusedRequests: refusals.refused,
      traceUrlTemplate: config.results.traceUrlTemplate,
      // Whole milliseconds: Redis's PX takes no fraction (1.1 hours is 3,960,000.0000000005 ms).
      retentionMs: Math.ceil(config.results.retentionHours * 3_600_000),
      storeContent: config.results.storeContent,
      driver: driver.name,
      schemaSources: schemaSourcesOf(
        core.givenSchemas,
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
      const { contentType, body } = await exposition(request.headers.accept);
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
        await core.shutdown();
      })();
      return closing;
    },
  };
}

/**
 * Two expositions in one format as one: `first`'s families, then `second`'s (OpenMetrics ends
 * with one `# EOF`, so `first`'s goes). Their families must not share names.
 */
function joinExpositions(first: MetricsExposition, second: MetricsExposition): MetricsExposition {
  return {
    contentType: first.contentType,
    body: first.body.replace(/# EOF\n?$/, '') + second.body,
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

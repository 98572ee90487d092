import type { Config } from '../config/config-schema.js';
import { loadToolSchemas } from '../config/load-tool-schemas.js';
import { exportTargetLine, resolveExport } from '../config/resolve-export.js';
import { probeEndpoint } from '../emit/probe-endpoint.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import type { MetricsExposition } from '../ingest/metrics-exposition.js';
import type { ReceiverMetrics } from '../ingest/receiver-metrics.js';
import { createQueueDriver } from '../queue/create-queue-driver.js';
import type { QueueDriver } from '../queue/queue-driver.js';
import type { GivenSchemas } from '../score/schemas/given-schemas.js';
import { planTestCaseIdAttributes } from '../score/scoring-plan.js';
import { driverEvents } from './driver-events.js';
import type { ScoringRuntime } from './scoring-runtime.js';
import { createServiceMetrics } from './service-metrics.js';
import type { ServiceHooks, ServiceRole } from './service.js';

/**
 * What the service's HTTP side (`listenService`) serves from: the queue driver, the metrics, and
 * what the scoring side tells the results page. Made in the process or thread that scores
 * ({@link startServiceCore}), or, for the embedded driver on two threads, from the thread that does.
 */
export interface ServiceCore {
  driver: QueueDriver;
  /** What the receiver counts into; `/metrics` serves its registry, then {@link ServiceCore.moreMetrics}. */
  metrics: ReceiverMetrics;
  /** Metrics kept in another thread (the scoring thread's), in the format `accept` asks. */
  moreMetrics?: (accept: string | undefined) => Promise<MetricsExposition>;
  /** The attributes test case ids are read from (the results page's inspect view); absent without scoring. */
  testCaseIdAttributes?: readonly string[];
  /** Evaluation spans go somewhere (an exporter, or the hooks' one). */
  exportEnabled: boolean;
  /** The schemas the config gives (`toolHealth.schemas`), read at start-up. */
  givenSchemas: GivenSchemas;
  /** Closes what the driver does not, after it: the scoring runtime (exporter flush, results file). */
  shutdown(): Promise<void>;
}

/**
 * Starts what scores, from a validated config: the queue driver (with the events that count and
 * record what ends a trace), the metrics, and, when this process has workers, the scoring runtime
 * (suites, rules, judge, result sinks), its workers started. Says where evaluation spans go.
 * An invalid suite or rule throws, the driver closed.
 */
export async function startServiceCore(
  config: Readonly<Config>,
  role: ServiceRole,
  hooks: ServiceHooks,
  log: (line: string) => void,
): Promise<ServiceCore> {
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
  const driver: QueueDriver = await createQueueDriver(
    config,
    role,
    driverEvents(config, metrics, log, () => driver),
  );
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
  return {
    driver,
    metrics,
    ...(scoring && { testCaseIdAttributes: planTestCaseIdAttributes(scoring.plan) }),
    exportEnabled: exportTarget.enabled || hooks.exporter !== undefined,
    givenSchemas,
    shutdown: async () => {
      await scoring?.shutdown();
    },
  };
}

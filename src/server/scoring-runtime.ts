import type { Config } from '../config/config-schema.js';
import type { ExportTarget } from '../config/resolve-export.js';
import { withBatching } from '../emit/batching-exporter.js';
import { createEvaluationLogSink } from '../emit/evaluation-log-sink.js';
import { createEvaluationSpanSink } from '../emit/evaluation-span-sink.js';
import { withExportBreaker } from '../emit/export-breaker.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import { createMetricsSink } from '../emit/metrics-sink.js';
import {
  createEvaluationExporter,
  type EvaluationExporter,
} from '../emit/otlp-evaluation-exporter.js';
import { createResultsFileSink } from '../emit/results-file-sink.js';
import { createLlmContext } from '../judge/create-llm-context.js';
import type { JudgeState, TraceScorer } from '../queue/queue-driver.js';
import { resultsStoreSink, type ResultsStore } from '../results/results-store.js';
import type { ExportOutcome } from '../results/stored-result.js';
import { standingVerdict } from '../results/standing-verdict.js';
import type { ResultSink } from '../score/result-sink.js';
import { scoreTrace, type ScoreTraceOptions } from '../score/score-trace.js';
import { scoreSession } from '../score/score-session.js';
import type { ScoringPlan } from '../score/scoring-plan.js';
import type { TraceResult } from '../score/trace-run.js';
import { loadSuite } from '../suite/load-suite.js';
import { rateLimitedLog } from '../log/rate-limited-log.js';
import { closestIds } from '../score/closest-ids.js';
import { resolveRules } from '../suite/production-rules.js';
import { resolveToolHealth } from '../suite/tool-health-rule.js';
import { TOOL_HEALTH_TARGET } from '../score/scoring-plan.js';
import { settledWithin } from '../queue/settled-within.js';
import type { ServiceMetrics } from './service-metrics.js';
import type { GivenSchemas } from '../score/schemas/given-schemas.js';
import type { SchemaRegistry } from '../score/schemas/schema-registry.js';
import { createSchemaLearning } from './schema-learning.js';

/** What a process that scores traces holds: the plan, the judge, the result sinks. */
export interface ScoringRuntime extends TraceScorer {
  readonly plan: ScoringPlan;
  /** Flushes the exporter and closes the results file. */
  shutdown(): Promise<void>;
}

/** What {@link createScoringRuntime} needs from the service. */
export interface ScoringRuntimeParts {
  metrics: ServiceMetrics;
  log: (line: string) => void;
  hooks: {
    onResult?: (result: TraceResult) => void;
    exporter?: EvaluationExporter;
    sinks?: readonly ResultSink[];
  };
  /** Where the queue driver keeps the judge's cache and daily spend, and who limits its calls. */
  judgeState: JudgeState;
  /** Where the queue driver keeps traces whose evaluation-span export waits for a retry. */
  exportBacklog: ExportBacklog;
  /** Where results and run records go, as soon as a trace is scored. */
  results: ResultsStore;
  /** Where evaluation spans go, or why they do not (`resolveExport`). */
  exportTarget: ExportTarget;
  /** Where the driver keeps learned schemas, and the schemas the config gives (read at start-up). */
  schemas: SchemaRegistry;
  givenSchemas: GivenSchemas;
}

/**
 * Loads everything scoring needs, once, for `startService`: the judge (its cache, spend ledger and
 * limits as the queue driver says), the suites and rules, and the result sinks, in two groups.
 * First those that record a pass once, as soon as it is scored: the results store, metrics, the
 * results file and log, the extra sinks. Then those that deliver it: the evaluation spans
 * (batched OTLP export, when enabled), then the `onResult` hook. A failed export rejects, and the
 * queue retries the pass with `exportRetry`: it is scored again (the same results: deterministic
 * scorers, cached judge answers) and handed to the delivering sinks only, so each result is
 * recorded once however long the backend is down. Loaded only by processes with workers, so a
 * receiver-only process never loads the judge client, the exporter or the scorers.
 */
export async function createScoringRuntime(
  config: Readonly<Config>,
  parts: ScoringRuntimeParts,
): Promise<ScoringRuntime> {
  const { metrics, log, hooks, judgeState, exportBacklog, results, exportTarget } = parts;
  const llm = createLlmContext(config.judge, {
    limits: judgeState.limits,
    retries: 'queue',
    ...(judgeState.cache && { cache: judgeState.cache }),
    ...(judgeState.ledger && { ledger: judgeState.ledger }),
    onCall: event => {
      metrics.judgeCalls.inc({ model: event.model, outcome: event.outcome });
      metrics.judgeTokens.inc({ model: event.model, direction: 'input' }, event.inputTokens);
      metrics.judgeTokens.inc({ model: event.model, direction: 'output' }, event.outputTokens);
      metrics.judgeCostUsd.inc({ model: event.model }, event.costUsd);
    },
    onCacheError: error => log(`spanscore: judge cache: ${(error as Error).message}`),
    log,
  });
  const suites = await Promise.all(config.suites.map(file => loadSuite(file, llm ? { llm } : {})));
  const plan: ScoringPlan = {
    suites,
    rules: resolveRules(config.rules, llm),
    toolHealth: resolveToolHealth(config),
    sessionIdAttributes: config.sessions.enabled && config.sessions.idAttributes,
    sessionIdleMs: config.sessions.idleMs,
  };
  for (const line of planLines(plan, config)) log(line);
  const schemas = createSchemaLearning(config, parts.schemas, parts.givenSchemas, log);
  if (plan.toolHealth || parts.givenSchemas.length) log(schemas.line);
  const usesJudge =
    plan.suites.some(s => s.cases.some(c => c.scorers.some(r => r.scorer.kind === 'llm'))) ||
    plan.rules.some(r => r.scorers.some(x => x.scorer.kind === 'llm'));
  // A hook's exporter (tests, the demo) stands for the configured endpoint.
  const exporting = hooks.exporter !== undefined || exportTarget.enabled;
  // Concurrent traces' spans share a request (each failed request counted); while the backend
  // fails, the breaker tries one request a second and fails the rest at once, for the queue to
  // retry with backoff.
  let exporter: EvaluationExporter | undefined;
  if (exporting) {
    const batched = withBatching(
      hooks.exporter ??
        createEvaluationExporter({
          ...(config.export.url && { url: config.export.url }),
          ...(config.export.headers && { headers: config.export.headers }),
          ...(config.export.protocol && { protocol: config.export.protocol }),
          maxRequestBytes: config.export.maxBatchBytes,
        }),
      { maxSpans: config.export.batchMaxSpans, maxDelayMs: config.export.batchDelayMs },
    );
    const failureLog = rateLimitedLog(log);
    const where =
      !hooks.exporter && exportTarget.enabled ? exportTarget.url : 'the configured exporter';
    // Made once, not a closure an export.
    const onExportFailure = (error: unknown): never => {
      metrics.exportFailures.inc();
      failureLog(
        'export',
        () =>
          `spanscore: exporting evaluation spans to ${where} failed: ${(error as Error).message} (retried; results are stored; SPANSCORE_EXPORT=false turns export off)`,
      );
      throw error;
    };
    exporter = withExportBreaker({
      export: spans => batched.export(spans).catch(onExportFailure),
      shutdown: () => batched.shutdown(),
    });
  }
  const resultsFile = createResultsFileSink({
    file: config.export.resultsFile,
    log: config.export.logResults ? log : undefined,
  });
  const exportState = exporting ? 'pending' : 'disabled';
  const record: ResultSink[] = [
    ...(config.results.write ? [resultsStoreSink(results, { exportState })] : []),
    createMetricsSink(metrics, {
      maxServices: config.metrics.maxServices,
      maxToolsPerService: config.toolHealth.maxToolsPerService,
    }),
    resultsFile,
  ];
  // A trace nothing scores: said once a minute, with why (tool health takes every other trace).
  const notScoredLog = rateLimitedLog(log, 60_000);
  record.push({
    name: 'not-scored-log',
    write: run => {
      if (run.state !== 'not_scored' || run.reasonCode === 'unknown_test_case') return;
      if (run.reasonCode === 'no_tool_calls' && !run.diagnostics.length) return;
      notScoredLog(
        'not-scored',
        () =>
          `spanscore: trace ${run.traceId}${run.serviceName ? ` of service "${run.serviceName}"` : ' (no service.name)'} was not scored: ${run.reason ?? run.reasonCode} (said once a minute)`,
      );
    },
  });
  // A run tagged with a test case id no suite has: said once per id an hour, with the ids it was
  // most likely meant to be.
  const unknownIdLog = rateLimitedLog(log, 3_600_000);
  const knownIds = plan.suites.flatMap(s => [...s.byId.keys()]);
  const known = new Set(knownIds);
  record.push({
    name: 'unknown-test-case-log',
    write: run => {
      const id = run.testCaseId;
      // Not scored, or scored by tool health alone: no suite or rule took the id.
      const unclaimed =
        run.state === 'not_scored' ||
        (run.results.length > 0 && run.results.every(r => r.suite === TOOL_HEALTH_TARGET));
      if (!id || known.size === 0 || known.has(id) || !unclaimed) return;
      unknownIdLog(`unknown:${id}`, () => {
        const near = closestIds(id, knownIds);
        return `spanscore: trace ${run.traceId} has test case id "${id}", which no loaded suite has${near.length ? ` (closest: ${near.join(', ')})` : ''}: mistyped, or its suite not loaded (--suite)?`;
      });
    },
  });
  const logSink = config.export.logs
    ? createEvaluationLogSink({
        ...(config.export.logsUrl && { url: config.export.logsUrl }),
        ...(config.export.headers && { headers: config.export.headers }),
      })
    : undefined;
  if (logSink) record.push(logSink);
  if (schemas.sink) record.push(schemas.sink);
  record.push(...(hooks.sinks ?? []));

  const deliver: ResultSink[] = [];
  if (exporter)
    deliver.push(
      createEvaluationSpanSink(exporter, {
        backlog: exportBacklog,
        ...(config.results.write && {
          report: (traceId: string, outcome: ExportOutcome) =>
            results.recordExport(traceId, outcome),
        }),
      }),
    );
  const onResult = hooks.onResult;
  if (onResult)
    deliver.push({
      name: 'on-result',
      write: run => {
        for (const result of run.results) if (result.outcomes.length) onResult(result);
      },
    });

  /**
   * Which verdict stands, for a rescore past the cap whose LLM scorers are skipped, read from the
   * trace's record before the rescore replaces it (`standingVerdict`); nothing when results are
   * not stored, or the read failed (the skip is said without it).
   */
  const standingNote = async (traceId: string): Promise<string> =>
    config.results.write ? await results.run(traceId).then(standingVerdict, () => '') : '';
  const lookup = schemas.lookup;
  // The delivery of a run with one delivering sink (the evaluation spans) is that sink's own.
  const single = deliver.length === 1 ? deliver[0] : undefined;
  const scoreThenDeliver: ScoringRuntime['scoreThenDeliver'] = async (
    traceId,
    spans,
    phase,
    options = {},
  ) => {
    // Plain stores in one order: no object a conditional spread, one shape a combination.
    const scoring: ScoreTraceOptions = { phase, sinks: options.exportRetry ? [] : record };
    if (options.propagate) scoring.propagate = options.propagate;
    if (options.notes) scoring.notes = options.notes;
    if (options.judgeSkipped !== undefined)
      scoring.judgeSkipped = options.judgeSkipped + (await standingNote(traceId));
    if (lookup) scoring.schemas = lookup;
    const run = await scoreTrace(traceId, spans, plan, scoring);
    // What each delivering sink needs is taken now: a delivery waiting on a slow backend holds
    // the evaluation spans, not the run and its spans (unless a sink without `prepare` needs it).
    if (single?.prepare) return { run, deliver: single.prepare(run) };
    if (deliver.length === 0) return { run, deliver: nothingToDeliver };
    const sends = deliver.map(sink =>
      sink.prepare ? sink.prepare(run) : async () => await sink.write(run),
    );
    return {
      run,
      deliver: async () => {
        for (const send of sends) await send();
      },
    };
  };
  const assemblesSessions =
    config.sessions.enabled &&
    (plan.suites.some(s => s.cases.some(c => c.testCase.session)) ||
      plan.toolHealth?.sessions !== undefined);
  return {
    plan,
    usesJudge,
    assemblesSessions,
    async scoreSession(sessionId, traces, pass, options) {
      const sinks = options?.exportRetry ? [] : record;
      const run = await scoreSession(sessionId, traces, plan, { sinks, pass });
      for (const sink of deliver) await sink.write(run);
      return run;
    },
    scoreThenDeliver,
    async score(traceId, spans, phase, options) {
      const { run, deliver } = await scoreThenDeliver(traceId, spans, phase, options);
      await deliver();
      return run;
    },
    async shutdown() {
      // Every delivery has ended by now (the driver closed first); what the exporter still has
      // under way is an export the driver gave up on, which shutdown does not wait out.
      await settledWithin(exporter?.shutdown(), EXPORTER_SHUTDOWN_MS);
      await logSink?.shutdown();
      await resultsFile.close();
    },
  };
}

/** What start-up says the plan scores: the suites and rules loaded, and tool health. */
function planLines(plan: ScoringPlan, config: Readonly<Config>): string[] {
  const lines = plan.suites.map(
    s => `spanscore: suite "${s.name}" (${s.file}): ${s.cases.length} test case(s)`,
  );
  if (plan.rules.length)
    lines.push(
      `spanscore: production rule(s) ${plan.rules.map(r => `"${r.name}"`).join(', ')}: traces of no test case`,
    );
  const health = config.toolHealth;
  if (plan.toolHealth)
    lines.push(
      `spanscore: tool health on: tool_errors, tool_arguments and tool_loops score ${health.sampleRate < 1 ? `${Math.round(health.sampleRate * 1000) / 10}% of ` : ''}every trace no suite or rule scores, as ${TOOL_HEALTH_TARGET} (toolHealth.enabled: false, SPANSCORE_TOOL_HEALTH=false turns it off)`,
    );
  if (plan.toolHealth?.sessions)
    lines.push(
      `spanscore: tool health across conversations on: tool_loops and tool_errors score ${health.sessionSampleRate < 1 ? `${Math.round(health.sessionSampleRate * 1000) / 10}% of ` : ''}every conversation (traces with a session id, gathered as sessions) when it is scored${config.sessions.enabled ? '' : ', but sessions.enabled is false: no session id is read'}`,
    );
  if (!plan.toolHealth && plan.suites.length === 0 && plan.rules.length === 0)
    lines.push(
      'spanscore: no suites or rules configured and tool health off: traces are received but none is scored (--suite FILE, or SPANSCORE_TOOL_HEALTH=true)',
    );
  return lines;
}

/** The delivery of a run no sink delivers. */
const nothingToDeliver = (): Promise<void> => Promise.resolve();

/** How long shutdown waits for the OTLP exporter to let go of requests under way. */
const EXPORTER_SHUTDOWN_MS = 1000;

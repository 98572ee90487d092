import { createWriteStream, type WriteStream } from 'node:fs';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config-schema.js';
import { withBatching } from '../emit/batching-exporter.js';
import {
  createEvaluationExporter,
  type EvaluationExporter,
} from '../emit/otlp-evaluation-exporter.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { processTrace, type ScoringPhase, type TraceResult } from '../queue/process-trace.js';
import { createRedisJudgeCache } from '../queue/redis-judge-cache.js';
import { createRedisSpendLedger } from '../queue/redis-spend-ledger.js';
import { traceResultRows } from '../report/result-row.js';
import { createLlmContext } from '../judge/create-llm-context.js';
import { loadSuite } from '../suite/load-suite.js';
import { resolveRules } from '../suite/production-rules.js';
import type { ServiceMetrics } from './service-metrics.js';

/** What a process that scores traces holds: suites, rules, the judge, the exporter, the results. */
export interface ScoringRuntime {
  /** Scores one complete trace in `phase` (default `all`) and writes its results back. */
  scoreTrace(
    traceId: string,
    spans: readonly SpanDigest[],
    phase?: ScoringPhase,
    propagate?: (error: unknown) => boolean,
  ): Promise<TraceResult[]>;
  /** True when a suite or rule uses an LLM scorer (the bullmq driver then runs a judge queue). */
  usesJudge: boolean;
  /** Flushes the exporter and closes the results file. */
  shutdown(): Promise<void>;
}

/** What {@link createScoringRuntime} needs from the service. */
export interface ScoringRuntimeParts {
  metrics: ServiceMetrics;
  log: (line: string) => void;
  hooks: { onResult?: (result: TraceResult) => void; exporter?: EvaluationExporter };
  /** The bullmq driver's command connection: the judge's cache and daily spend live in Redis. */
  commands?: Redis;
}

/**
 * Loads everything scoring needs, once, for `startService`: the judge (with BullMQ its cache and
 * daily spend go to Redis, and its queue does the retries and rate limiting; otherwise this
 * process does), the suites and rules, the batching evaluation-span exporter, and the results file
 * and log. Loaded only by processes with workers, so a receiver-only process never loads the
 * judge client, the exporter or the scorers.
 */
export async function createScoringRuntime(
  config: Readonly<Config>,
  parts: ScoringRuntimeParts,
): Promise<ScoringRuntime> {
  const { metrics, log, hooks, commands } = parts;
  const llm = createLlmContext(config.judge, {
    limits: commands ? 'queue' : 'process',
    ...(commands && {
      cache: createRedisJudgeCache(commands, config.queue.prefix, config.judge.cacheTtlSeconds),
      ledger: createRedisSpendLedger(commands, config.queue.prefix),
    }),
    onCall: event => {
      metrics.judgeCalls.inc({ model: event.model, outcome: event.outcome });
      metrics.judgeTokens.inc({ model: event.model, direction: 'input' }, event.inputTokens);
      metrics.judgeTokens.inc({ model: event.model, direction: 'output' }, event.outputTokens);
      metrics.judgeCostUsd.inc({ model: event.model }, event.costUsd);
    },
    onCacheError: error => log(`spanscore: judge cache: ${(error as Error).message}`),
  });
  const suites = await Promise.all(config.suites.map(file => loadSuite(file, llm ? { llm } : {})));
  const rules = resolveRules(config.rules, llm);
  if (suites.length === 0 && rules.length === 0) {
    log(
      'spanscore: no suites or rules configured: traces are received but none is scored (--suite FILE)',
    );
  }
  const usesJudge =
    suites.some(s => s.cases.some(c => c.scorers.some(r => r.scorer.kind === 'llm'))) ||
    rules.some(r => r.scorers.some(x => x.scorer.kind === 'llm'));
  const exporter = withBatching(
    hooks.exporter ??
      createEvaluationExporter({
        ...(config.export.url && { url: config.export.url }),
        ...(config.export.headers && { headers: config.export.headers }),
        ...(config.export.protocol && { protocol: config.export.protocol }),
      }),
    { maxSpans: config.export.batchMaxSpans, maxDelayMs: config.export.batchDelayMs },
  );
  const countedExporter: EvaluationExporter = {
    export: spans =>
      exporter.export(spans).catch((error: unknown) => {
        metrics.exportFailures.inc();
        throw error;
      }),
    shutdown: () => exporter.shutdown(),
  };
  const results: WriteStream | undefined = config.export.resultsFile
    ? createWriteStream(config.export.resultsFile, { flags: 'a' })
    : undefined;
  const onResult = (result: TraceResult): void => {
    if (result.phase !== 'llm') metrics.tracesScored.inc();
    for (const { scorer, result: r } of result.outcomes)
      metrics.scores.inc({ scorer, status: r.status, label: r.status === 'scored' ? r.label : '' });
    if (results || config.export.logResults) {
      const rows = traceResultRows(result.trace, result.testCaseId, result.outcomes);
      if (results) for (const row of rows) results.write(`${JSON.stringify(row)}\n`);
      if (config.export.logResults) {
        const summary = rows
          .map(r => `${r.scorer}=${r.score ?? r.status}${r.label ? ` ${r.label}` : ''}`)
          .join(', ');
        log(
          `spanscore: scored trace ${result.trace.traceId} test case ${result.testCaseId}: ${summary}`,
        );
      }
    }
    hooks.onResult?.(result);
  };

  return {
    usesJudge,
    scoreTrace: (traceId, spans, phase = 'all', propagate) =>
      processTrace(traceId, spans, {
        suites,
        rules,
        exporter: countedExporter,
        onResult,
        phase,
        ...(propagate && { propagate }),
      }),
    async shutdown() {
      await exporter.shutdown();
      if (results) await new Promise<void>(resolve => results.end(resolve));
    },
  };
}

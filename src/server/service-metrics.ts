import pTimeout from 'p-timeout';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type RegistryContentType,
} from 'prom-client';
import { createReceiverMetrics, type ReceiverMetrics } from '../ingest/receiver-metrics.js';

/** Everything `/metrics` shows: the receiver's metrics plus assembly, scoring and export. */
export interface ServiceMetrics extends ReceiverMetrics {
  tracesScored: Counter;
  traceFailures: Counter;
  sessionFailures: Counter;
  tracesExpired: Counter;
  admissionRefusals: Counter<'reason'>;
  lateSpans: Counter;
  exportFailures: Counter;
  scores: Counter<'scorer' | 'status' | 'label'>;
  evaluations: Counter<'scorer' | 'target' | 'label' | 'service'>;
  evaluationScore: Histogram<'scorer' | 'target' | 'service'>;
  agentEvaluations: Counter<'scorer' | 'agent' | 'label'>;
  agentFailures: Counter<'scorer' | 'agent'>;
  toolCalls: Counter<'service' | 'tool' | 'outcome'>;
  toolArgumentsChecked: Counter<'service' | 'tool'>;
  toolArgumentProblems: Counter<'service' | 'tool' | 'problem'>;
  toolRepeatedCalls: Counter<'service' | 'tool'>;
  scoringLag: Histogram;
  tracesNotScored: Counter<'reason'>;
  sessionsScored: Counter<'state' | 'cut'>;
  sessionsEvicted: Counter;
  sessionsRefused: Counter<'reason'>;
  sessionTurnsDropped: Counter<'reason'>;
  jobs: Gauge<'state'>;
  exportsWaiting: Gauge;
  exportOldestPending: Gauge;
  judgeCalls: Counter<'model' | 'outcome'>;
  judgeTokens: Counter<'model' | 'direction'>;
  judgeCostUsd: Counter<'model'>;
  /** See `ScoreCounters.beforeScrape`. */
  beforeScrape: (flush: () => void) => void;
}

/** How long a scrape waits for a gauge read from the queue store. */
const SCRAPE_READ_TIMEOUT_MS = 2000;

/**
 * Creates the service metrics, prom-client's default process metrics included
 * (`process_cpu_seconds_total`, `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`,
 * `nodejs_external_memory_bytes`, `nodejs_eventloop_lag_seconds`, …); `jobsByState` and
 * `exportBacklog` are read at each scrape.
 */
export function createServiceMetrics(
  jobsByState?: () => Promise<Record<string, number>>,
  exportBacklog?: () => Promise<{ waiting: number; oldestAgeSeconds: number }>,
  registry?: Registry<RegistryContentType>,
): ServiceMetrics {
  // OpenMetrics, so the score histogram can carry trace-id exemplars.
  const base = createReceiverMetrics(registry ?? openMetricsRegistry());
  const registers = [base.registry];
  // The process's own: CPU seconds, resident memory, heap and external memory, event loop lag and
  // GC, so the cost of a receiver or a worker is read where its throughput is.
  collectDefaultMetrics({ register: base.registry });
  // Both backlog gauges are collected together at a scrape: they share one read in flight.
  let backlogRead: ReturnType<NonNullable<typeof exportBacklog>> | undefined;
  const backlog = () =>
    (backlogRead ??= exportBacklog!().finally(() => {
      backlogRead = undefined;
    }));
  // Counts the scoring path keeps until a scrape (`ScoreCounters.beforeScrape`): handed over by
  // the first of their counters a scrape reads.
  const flushers: Array<() => void> = [];
  const flushDeferred = (): void => flushers.forEach(f => f());
  // Gauges read from the queue's store at a scrape: while it is unreachable (a Redis outage, the
  // very time the receiver's backpressure counters matter) such a gauge has no value and the
  // failed or slow read is counted, instead of the whole scrape failing with a 500 or hanging.
  const readFailures = new Counter({
    name: 'spanscore_metrics_read_failures_total',
    help: 'Scrapes at which a gauge read from the queue store (jobs, export backlog) failed; the gauge has no value in that scrape',
    labelNames: ['gauge'],
    registers,
  });
  const readAtScrape = async <T>(gauge: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      // A read that waits on a store that is down (BullMQ's connections queue commands while
      // reconnecting) would hold the scrape past Prometheus' timeout.
      return await pTimeout(read(), { milliseconds: SCRAPE_READ_TIMEOUT_MS });
    } catch {
      readFailures.inc({ gauge });
      return undefined;
    }
  };
  return {
    ...base,
    beforeScrape: flush => void flushers.push(flush),
    tracesScored: new Counter({
      name: 'spanscore_traces_scored_total',
      help: 'Traces scored and written back',
      registers,
      collect: flushDeferred,
    }),
    sessionsScored: new Counter({
      name: 'spanscore_sessions_scored_total',
      help: 'Session passes (conversations, one trace per turn) scored as one against a session test case, by state and the bound that cut them (cut: max_traces, max_age, max_bytes, evicted, or none); each part of a session counts, and a pass scored again counts again',
      labelNames: ['state', 'cut'],
      registers,
    }),
    sessionsEvicted: new Counter({
      name: 'spanscore_sessions_evicted_total',
      help: 'Memory driver: held sessions let go to make room (sessions.maxOpen, sessions.maxBytes): the oldest, scored first with cut evicted when it waited; a later turn opens its next part',
      registers,
    }),
    sessionTurnsDropped: new Counter({
      name: 'spanscore_session_turns_dropped_total',
      help: 'Turns of a session not scored with it (reason forgotten: the session was let go so long ago that no record of it is left; failed: the pass of its part failed after its retries once nothing held the part)',
      labelNames: ['reason'],
      registers,
    }),
    sessionsRefused: new Counter({
      name: 'spanscore_sessions_refused_total',
      help: "Sessions (or a session's next part) not held because a bound refused them, by reason (max_bytes: the bytes all sessions hold reached sessions.maxBytes); the turn that would open one is scored alone, as the part it would have opened",
      labelNames: ['reason'],
      registers,
    }),
    traceFailures: new Counter({
      name: 'spanscore_trace_failures_total',
      help: 'Traces that could not be scored after retries',
      registers,
    }),
    sessionFailures: new Counter({
      name: 'spanscore_session_failures_total',
      help: "Session passes (a part of a session each) that ended failed: after their retries, their export given up on, or (bullmq) their job stalled past BullMQ's limit; a part that fails again counts again",
      registers,
    }),
    tracesExpired: new Counter({
      name: 'spanscore_traces_expired_total',
      help: 'Traces accepted whose spans were gone before a worker could score them (each has an expired run record)',
      registers,
    }),
    admissionRefusals: new Counter({
      name: 'spanscore_admission_refusals_total',
      help: 'Requests refused with 503 + Retry-After because the backlog could not keep them, by reason (backlog_age, redis_memory, no_workers)',
      labelNames: ['reason'],
      registers,
    }),
    lateSpans: new Counter({
      name: 'spanscore_late_spans_total',
      help: 'Spans that arrived after their trace was scored',
      registers,
    }),
    exportFailures: new Counter({
      name: 'spanscore_export_failures_total',
      help: 'Failed exports of evaluation spans (each is retried)',
      registers,
    }),
    scores: new Counter({
      name: 'spanscore_scores_total',
      help: 'Scorer results by scorer, status and label',
      labelNames: ['scorer', 'status', 'label'],
      registers,
      collect: flushDeferred,
    }),
    evaluations: new Counter({
      name: 'spanscore_evaluations_total',
      help: 'Results by scorer, test case or rule (target), label (pass, fail, skipped, failed) and evaluated service',
      labelNames: ['scorer', 'target', 'label', 'service'],
      registers,
      collect: flushDeferred,
    }),
    evaluationScore: new Histogram({
      name: 'gen_ai_evaluation_score',
      help: 'Scores (gen_ai.evaluation.score, 0..1) by scorer, test case or rule and evaluated service; exemplars carry the trace id',
      labelNames: ['scorer', 'target', 'service'],
      buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
      enableExemplars: true,
      registers,
    }),
    agentEvaluations: new Counter({
      name: 'spanscore_agent_evaluations_total',
      help: 'Results of multi-agent traces by scorer, agent of the route (each agent the run went through; past 20 agents, other) and label',
      labelNames: ['scorer', 'agent', 'label'],
      registers,
      collect: flushDeferred,
    }),
    agentFailures: new Counter({
      name: 'spanscore_agent_failures_total',
      help: 'Failing results by scorer and the agent they blame: the agent that made the wrong call, or handed off the wrong way',
      labelNames: ['scorer', 'agent'],
      registers,
      collect: flushDeferred,
    }),
    toolCalls: new Counter({
      name: 'spanscore_tool_calls_total',
      help: 'Tool calls of scored traces by evaluated service, tool (past toolHealth.maxToolsPerService per service, other) and outcome (ok, error: ran and failed, refused: not run by the framework)',
      labelNames: ['service', 'tool', 'outcome'],
      registers,
      collect: flushDeferred,
    }),
    toolArgumentsChecked: new Counter({
      name: 'spanscore_tool_arguments_checked_total',
      help: 'Tool calls whose arguments were checked against the JSON Schema offered to the model (tool_arguments), by service and tool',
      labelNames: ['service', 'tool'],
      registers,
      collect: flushDeferred,
    }),
    toolArgumentProblems: new Counter({
      name: 'spanscore_tool_argument_problems_total',
      help: 'Tool calls with invalid arguments (problem="invalid") or to a tool never offered to the model (problem="unknown"), by service and tool',
      labelNames: ['service', 'tool', 'problem'],
      registers,
      collect: flushDeferred,
    }),
    toolRepeatedCalls: new Counter({
      name: 'spanscore_tool_repeated_calls_total',
      help: 'Tool calls that were part of a loop (the same tool with the same arguments, tool_loops), by service and tool',
      labelNames: ['service', 'tool'],
      registers,
      collect: flushDeferred,
    }),
    scoringLag: new Histogram({
      name: 'spanscore_scoring_lag_seconds',
      help: "Seconds from a trace's last span end to its scoring",
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    }),
    tracesNotScored: new Counter({
      name: 'spanscore_traces_not_scored_total',
      help: 'Traces that matched no test case or rule, by reason (no_test_case_id, unknown_test_case, no_rule_matched, sampled_out, nothing_configured; no_tool_calls: only tool health would score it, and it records no tool call)',
      labelNames: ['reason'],
      registers,
      collect: flushDeferred,
    }),
    judgeCalls: new Counter({
      name: 'spanscore_judge_calls_total',
      help: 'LLM judge calls by model and outcome (answered, cached, or the error code)',
      labelNames: ['model', 'outcome'],
      registers,
    }),
    judgeTokens: new Counter({
      name: 'spanscore_judge_tokens_total',
      help: 'LLM judge tokens by model and direction (input, output)',
      labelNames: ['model', 'direction'],
      registers,
    }),
    judgeCostUsd: new Counter({
      name: 'spanscore_judge_cost_usd_total',
      help: 'Estimated LLM judge cost in US dollars, from judge.prices',
      labelNames: ['model'],
      registers,
    }),
    exportsWaiting: new Gauge({
      name: 'spanscore_exports_waiting',
      help: 'Traces whose evaluation-span export failed and waits for a retry',
      registers,
      async collect() {
        if (!exportBacklog) return;
        const read = await readAtScrape('spanscore_exports_waiting', backlog);
        if (read) this.set(read.waiting);
        else this.reset();
      },
    }),
    exportOldestPending: new Gauge({
      name: 'spanscore_export_oldest_pending_seconds',
      help: 'How long the oldest trace waiting for a retried export has waited (0 when none)',
      registers,
      async collect() {
        if (!exportBacklog) return;
        const read = await readAtScrape('spanscore_export_oldest_pending_seconds', backlog);
        if (read) this.set(read.oldestAgeSeconds);
        else this.reset();
      },
    }),
    jobs: new Gauge({
      name: 'spanscore_jobs',
      help: 'Queued work by state: trace jobs, and judge jobs as judge_<state>',
      labelNames: ['state'],
      registers,
      async collect() {
        if (!jobsByState) return;
        const read = await readAtScrape('spanscore_jobs', jobsByState);
        this.reset();
        for (const [state, count] of Object.entries(read ?? {})) this.set({ state }, count);
      },
    }),
  };
}

/** A registry that writes OpenMetrics (with exemplars) when asked: what `/metrics` serves from. */
export function openMetricsRegistry(): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  return registry;
}

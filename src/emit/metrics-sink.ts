import type { Counter, Histogram } from 'prom-client';
import { boundedNames } from '../results/bounded-names.js';
import { failingAgents } from '../score/failing-agents.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import type { ResultSink } from '../score/result-sink.js';

/** The metrics {@link createMetricsSink} feeds (the service's `/metrics`). */
export interface ScoreCounters {
  tracesScored: Counter;
  scores: Counter<'scorer' | 'status' | 'label'>;
  evaluations: Counter<'scorer' | 'target' | 'label' | 'service'>;
  evaluationScore: Histogram<'scorer' | 'target' | 'service'>;
  /** Results of multi-agent traces, once per agent of the route; `blamed` counts failures it caused. */
  agentEvaluations: Counter<'scorer' | 'agent' | 'label'>;
  agentFailures: Counter<'scorer' | 'agent'>;
  toolCalls: Counter<'service' | 'tool' | 'outcome'>;
  toolArgumentsChecked: Counter<'service' | 'tool'>;
  toolArgumentProblems: Counter<'service' | 'tool' | 'problem'>;
  toolRepeatedCalls: Counter<'service' | 'tool'>;
  scoringLag: Histogram;
  tracesNotScored: Counter<'reason'>;
}

/** Options of {@link createMetricsSink}. */
export interface MetricsSinkOptions {
  /** Evaluated services labelled by name; past this many distinct ones, `other`. @defaultValue 20 */
  maxServices?: number;
  /** Agents labelled by name; past this many distinct ones, `other`. @defaultValue 20 */
  maxAgents?: number;
  /** Tools labelled by name per service; past this many distinct ones, `other`. @defaultValue 30 */
  maxToolsPerService?: number;
  now?: () => number;
}

/**
 * The result sink behind the score metrics. A trace counts as scored once, in the pass that runs
 * its deterministic scorers (the `llm` pass adds only its outcomes), with its scoring lag (from its
 * last span's end). Every outcome counts by scorer, test case or rule (`target`), label and
 * evaluated service, and a score goes into `gen_ai_evaluation_score` with the trace id as an
 * exemplar. A result of a multi-agent trace also counts once per agent of its route, and against
 * the agents it blames (see `failingAgents`). A trace not scored counts by reason code.
 * Cardinality stays bounded: targets come from the suites and rules, services past `maxServices`
 * and agents past `maxAgents` fold into `other`.
 */
export function createMetricsSink(
  metrics: ScoreCounters,
  options: MetricsSinkOptions = {},
): ResultSink {
  const now = options.now ?? Date.now;
  const services = boundedNames(options.maxServices ?? 20);
  const agents = boundedNames(options.maxAgents ?? 20);
  const tools = boundedNames(options.maxToolsPerService ?? 30);
  const serviceLabel = (name: string): string => services('', name);
  const agentLabel = (name: string): string => agents('', name);
  return {
    name: 'metrics',
    write(run) {
      if (run.state === 'not_scored') {
        metrics.tracesNotScored.inc({ reason: run.reasonCode ?? 'unknown' });
        return;
      }
      for (const fact of toolCallFacts(run)) {
        const service = serviceLabel(fact.service || 'unknown');
        const labels = { service, tool: tools(service, fact.tool) };
        metrics.toolCalls.inc({ ...labels, outcome: fact.outcome });
        if (fact.checked) metrics.toolArgumentsChecked.inc(labels);
        if (fact.invalid) metrics.toolArgumentProblems.inc({ ...labels, problem: 'invalid' });
        if (fact.unknown) metrics.toolArgumentProblems.inc({ ...labels, problem: 'unknown' });
        if (fact.repeated) metrics.toolRepeatedCalls.inc(labels);
      }
      let lagObserved = false;
      for (const result of run.results) {
        if (result.outcomes.length === 0) continue;
        if (result.phase !== 'llm') {
          metrics.tracesScored.inc();
          if (!lagObserved) {
            lagObserved = true;
            let lastEnd = 0n;
            for (const span of result.trace.spans)
              if (span.endTimeUnixNano > lastEnd) lastEnd = span.endTimeUnixNano;
            if (lastEnd > 0n)
              metrics.scoringLag.observe(Math.max(0, now() / 1000 - Number(lastEnd) / 1e9));
          }
        }
        const service = serviceLabel(result.trace.serviceName || 'unknown');
        const target = result.testCaseId;
        for (const { scorer, result: r } of result.outcomes) {
          const label = r.status === 'scored' ? r.label : r.status;
          metrics.scores.inc({
            scorer,
            status: r.status,
            label: r.status === 'scored' ? r.label : '',
          });
          metrics.evaluations.inc({ scorer, target, label, service });
          if (result.trace.agents.length) {
            const route = new Set(result.trace.agents.map(t => agentLabel(t.agent)));
            for (const agent of route) metrics.agentEvaluations.inc({ scorer, agent, label });
            for (const agent of failingAgents(r))
              metrics.agentFailures.inc({ scorer, agent: agentLabel(agent) });
          }
          if (r.status === 'scored')
            metrics.evaluationScore.observe({
              labels: { scorer, target, service },
              value: r.score,
              // prom-client types exemplar labels as the metric's own label names; any are allowed.
              exemplarLabels: { trace_id: run.traceId } as Partial<Record<string, string>>,
            });
        }
      }
    },
  };
}

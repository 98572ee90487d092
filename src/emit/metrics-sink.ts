import type { Counter, Histogram } from 'prom-client';
import { serviceNameOf } from '../ingest/service-name-of.js';
import { boundedNames } from '../results/bounded-names.js';
import { failingAgents } from '../score/failing-agents.js';
import { toolCallFacts } from '../score/tool-call-facts.js';
import type { ResultSink } from '../score/result-sink.js';
import { DeferredCounts } from './deferred-counts.js';
import { histogramObserver } from './histogram-observer.js';

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
  /** Session passes (a conversation scored as one), by state and the bound that cut it (`none`). */
  sessionsScored?: Counter<'state' | 'cut'>;
  /**
   * Registers a function to run before a scrape reads these counters: the sink then keeps its
   * counts and hands them over there (see `DeferredCounts`). Without it they go straight to the
   * counters.
   */
  beforeScrape?: (flush: () => void) => void;
}

/** Options of {@link createMetricsSink}. */
export interface MetricsSinkOptions {
  /** Evaluated services labelled by name; past this many distinct ones, `other` (`metrics.maxServices`). */
  maxServices: number;
  /** Agents labelled by name; past this many distinct ones, `other`. Not a setting: @defaultValue 20 */
  maxAgents?: number;
  /** Tools labelled by name per service; past this many, `other` (`toolHealth.maxToolsPerService`). */
  maxToolsPerService: number;
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
export function createMetricsSink(metrics: ScoreCounters, options: MetricsSinkOptions): ResultSink {
  const now = options.now ?? Date.now;
  const services = boundedNames(options.maxServices);
  const agents = boundedNames(options.maxAgents ?? 20);
  const tools = boundedNames(options.maxToolsPerService);
  const serviceLabel = (name: string): string => services('', name);
  const agentLabel = (name: string): string => agents('', name);
  const deferred: Array<DeferredCounts<string>> = [];
  // Counts go to the counters at a scrape when the service says when that is, else at once. A
  // count's label values go through one array per counter, refilled each call (read before the
  // call returns, never kept): no array per increment on the scoring path.
  const counts = <L extends string>(counter: Counter<L>, labelNames: readonly L[]) => {
    const values: string[] = labelNames.map(() => '');
    const fill = (a?: string, b?: string, c?: string, d?: string): string[] => {
      const n = values.length;
      if (n > 0) values[0] = a!;
      if (n > 1) values[1] = b!;
      if (n > 2) values[2] = c!;
      if (n > 3) values[3] = d!;
      return values;
    };
    if (!metrics.beforeScrape)
      return (a?: string, b?: string, c?: string, d?: string): void => {
        fill(a, b, c, d);
        const labels: Partial<Record<L, string>> = {};
        labelNames.forEach((name, i) => (labels[name] = values[i]));
        counter.inc(labels, 1);
      };
    const deferredCounts = new DeferredCounts(counter, labelNames);
    deferred.push(deferredCounts);
    return (a?: string, b?: string, c?: string, d?: string): void =>
      deferredCounts.add(fill(a, b, c, d));
  };
  const tracesScored = counts(metrics.tracesScored as Counter<'none'>, []);
  const notScored = counts(metrics.tracesNotScored, ['reason']);
  const toolCalls = counts(metrics.toolCalls, ['service', 'tool', 'outcome']);
  const argumentsChecked = counts(metrics.toolArgumentsChecked, ['service', 'tool']);
  const argumentProblems = counts(metrics.toolArgumentProblems, ['service', 'tool', 'problem']);
  const repeatedCalls = counts(metrics.toolRepeatedCalls, ['service', 'tool']);
  const scores = counts(metrics.scores, ['scorer', 'status', 'label']);
  const evaluations = counts(metrics.evaluations, ['scorer', 'target', 'label', 'service']);
  const agentEvaluations = counts(metrics.agentEvaluations, ['scorer', 'agent', 'label']);
  const agentFailures = counts(metrics.agentFailures, ['scorer', 'agent']);
  metrics.beforeScrape?.(() => deferred.forEach(d => d.flush()));
  // The histograms, observed in place once a series exists (see histogramObserver), with their
  // label values in one array refilled each call as for the counts.
  const observeScore = histogramObserver(metrics.evaluationScore, ['scorer', 'target', 'service']);
  const scoreLabels = ['', '', ''];
  const observeLag = histogramObserver(metrics.scoringLag, []);
  const noLabels: readonly string[] = [];
  return {
    name: 'metrics',
    write(run) {
      if (run.session && metrics.sessionsScored)
        metrics.sessionsScored.inc({
          state: run.state,
          cut: run.session.cut?.code ?? 'none',
        });
      if (run.state === 'not_scored') {
        notScored(run.reasonCode ?? 'unknown');
        return;
      }
      // Indexed loops: no iterator result a step on this path (the sink runs once a trace).
      const facts = toolCallFacts(run);
      // A trace's calls share their service: its label worked out once (cut, checked, bounded).
      let rawService: string | undefined;
      let service = '';
      for (let i = 0; i < facts.length; i++) {
        const fact = facts[i]!;
        if (fact.service !== rawService) {
          rawService = fact.service;
          service = serviceLabel(serviceNameOf(rawService));
        }
        const tool = tools(service, fact.tool);
        toolCalls(service, tool, fact.outcome);
        if (fact.checked) argumentsChecked(service, tool);
        if (fact.invalid) argumentProblems(service, tool, 'invalid');
        if (fact.unknown) argumentProblems(service, tool, 'unknown');
        if (fact.repeated) repeatedCalls(service, tool);
      }
      let lagObserved = false;
      let exemplar: Record<string, string> | undefined;
      const results = run.results;
      for (let i = 0; i < results.length; i++) {
        const result = results[i]!;
        if (result.outcomes.length === 0) continue;
        // A session's pass is counted as a session (above), its calls as the calls they are.
        if (result.phase !== 'llm' && !run.session) {
          tracesScored();
          if (!lagObserved) {
            lagObserved = true;
            let lastEnd = 0n;
            const spans = result.trace.spans;
            for (let j = 0; j < spans.length; j++)
              if (spans[j]!.endTimeUnixNano > lastEnd) lastEnd = spans[j]!.endTimeUnixNano;
            if (lastEnd > 0n)
              observeLag(noLabels, Math.max(0, now() / 1000 - Number(lastEnd) / 1e9));
          }
        }
        const service = serviceLabel(serviceNameOf(result.trace.serviceName));
        const target = result.testCaseId;
        // The agents of the route, once per result rather than per outcome.
        const route = result.trace.agents.length
          ? new Set(result.trace.agents.map(t => agentLabel(t.agent)))
          : undefined;
        const outcomes = result.outcomes;
        for (let j = 0; j < outcomes.length; j++) {
          const { scorer, result: r } = outcomes[j]!;
          const label = r.status === 'scored' ? r.label : r.status;
          scores(scorer, r.status, r.status === 'scored' ? r.label : '');
          evaluations(scorer, target, label, service);
          if (route) {
            for (const agent of route) agentEvaluations(scorer, agent, label);
            for (const agent of failingAgents(r)) agentFailures(scorer, agentLabel(agent));
          }
          if (r.status === 'scored') {
            scoreLabels[0] = scorer;
            scoreLabels[1] = target;
            scoreLabels[2] = service;
            // One exemplar label set a run, shared by its exemplars: prom-client never changes one.
            observeScore(scoreLabels, r.score, (exemplar ??= { trace_id: run.traceId }));
          }
        }
      }
    },
  };
}

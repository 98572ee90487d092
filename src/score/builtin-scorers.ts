import { agentRouting } from './deterministic/agent-routing.js';
import { toolCallAccuracy } from './deterministic/tool-call-accuracy.js';
import { toolCorrectness } from './deterministic/tool-correctness.js';
import { toolTrajectory } from './deterministic/tool-trajectory.js';
import { toolArguments } from './deterministic/tool-arguments.js';
import { toolErrors } from './deterministic/tool-errors.js';
import { toolLoops } from './deterministic/tool-loops.js';
import { createGraderScorer } from './graders/create-grader-scorer.js';
import type { Scorer } from './scorer.js';

/** Every built-in scorer by name. */
export const BUILTIN_SCORERS: ReadonlyMap<string, Scorer<unknown>> = new Map<
  string,
  Scorer<unknown>
>(
  [
    toolCallAccuracy,
    toolCorrectness,
    toolTrajectory,
    agentRouting,
    toolErrors,
    toolArguments,
    toolLoops,
    createGraderScorer('exact_match'),
    createGraderScorer('contains'),
    createGraderScorer('regex_match'),
    createGraderScorer('ascii_printable_only'),
  ].map((s): [string, Scorer<unknown>] => [s.name, s as Scorer<unknown>]),
);

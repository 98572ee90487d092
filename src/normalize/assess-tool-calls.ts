import {
  checkArguments,
  traceCheckBudget,
  type CheckBudget,
  type CheckOptions,
} from './check-arguments.js';
import type { NormalizedTrace } from './normalize-trace.js';
import {
  extractOfferedTools,
  findOfferedTool,
  offeredToCall,
  type OfferedToolsBySpan,
} from './offered-tools.js';
import { SpanIndex } from './span-index.js';
import type { ToolCall } from './tool-call.js';

/** What a trace shows of one call beyond its outcome: was it offered, were its arguments valid. */
export interface ToolCallAssessment {
  call: ToolCall;
  /**
   * Whether the tool was among those offered to the model call that requested it; `null` when the
   * trace records no offered tools for it.
   */
  offered: boolean | null;
  /** The tools offered to that model call (names), when `offered` is not `null`. */
  offeredNames?: string[];
  /**
   * Its arguments' problems against the schema offered (`path: message`), `[]` when they are
   * valid; `null` when they were not checked (see `unchecked`).
   */
  argumentProblems: string[] | null;
  /** Why the arguments were not checked, when `argumentProblems` is `null`. */
  unchecked?: string;
  /** What of the schema was not applied (a pattern the linear-time engine cannot run). */
  notes?: string[];
}

/** Every call of a trace assessed (in `toolSequence` order), and what the trace records at all. */
export interface ToolCallsAssessment {
  calls: ToolCallAssessment[];
  /** The trace records which tools were offered to a model, somewhere. */
  offeredRecorded: boolean;
  /** Some offered tool has a JSON Schema in the trace. */
  schemasRecorded: boolean;
}

const assessed = new WeakMap<object, ToolCallsAssessment>();

/**
 * Assesses each of the trace's calls against the tools offered to the model call that requested
 * it (see `offeredToCall`): a tool that was not offered is `offered: false`; the arguments of one
 * that was are checked against its JSON Schema ({@link checkArguments}), all of the trace's checks
 * within one budget of work (`traceCheckBudget`): past it, a call is unchecked with the reason. Arguments that look like
 * JSON but do not parse are invalid; other text is checked as it is when a model sent it, and left
 * unchecked when an instrumentation recorded it on its own tool span (LangChain records a
 * one-argument tool's input bare). Pure; computed once per trace object (the first caller's
 * `options` hold: the scoring path's `tool_arguments` runs before the store reads it).
 */
export function assessToolCalls(
  trace: Pick<NormalizedTrace, 'spans' | 'toolSequence'>,
  options: Pick<CheckOptions, 'assertFormats'> = {},
): ToolCallsAssessment {
  let result = assessed.get(trace);
  if (result) return result;
  const offered: OfferedToolsBySpan =
    trace.toolSequence.length === 0 ? new Map() : extractOfferedTools(trace.spans);
  const index = new SpanIndex(trace.spans);
  // One budget for the trace's checks: a trace of many hostile calls costs no more than the bound.
  const budget = traceCheckBudget();
  result = {
    calls: trace.toolSequence.map(call => assessCall(call, offered, index, budget, options)),
    offeredRecorded: offered.size > 0,
    schemasRecorded: [...offered.values()].some(tools =>
      tools.some(t => t.parameters !== undefined),
    ),
  };
  assessed.set(trace, result);
  return result;
}

function assessCall(
  call: ToolCall,
  offered: OfferedToolsBySpan,
  index: SpanIndex,
  budget: CheckBudget,
  options: Pick<CheckOptions, 'assertFormats'>,
): ToolCallAssessment {
  const applies = offeredToCall(call, offered, index);
  if (!applies)
    return {
      call,
      offered: null,
      argumentProblems: null,
      unchecked: 'the trace records no tools offered to the model',
    };
  const offeredNames = applies.tools.map(t => t.name);
  const tool = findOfferedTool(applies.tools, call.rawName);
  if (!tool)
    return {
      call,
      offered: false,
      offeredNames,
      argumentProblems: null,
      unchecked: `${call.name} was not offered to the model`,
    };
  const base = { call, offered: true, offeredNames } as const;
  if (tool.parameters === undefined)
    return {
      ...base,
      argumentProblems: null,
      unchecked: `the trace records no schema for ${call.name}`,
    };
  // The model's request where the trace records it; what the tool span ran with only when that
  // is the only record (a framework may add fields before running the tool).
  const fromModel = call.source === 'requested' || call.requestedArguments !== undefined;
  const args = call.requestedArguments !== undefined ? call.requestedArguments : call.arguments;
  if (args === undefined)
    return { ...base, argumentProblems: null, unchecked: 'its arguments are not recorded' };
  if (typeof args === 'string') {
    if (/^\s*[[{]/.test(args))
      return { ...base, argumentProblems: ['/: the arguments are not valid JSON'] };
    // A tool span may record a lone argument bare; what a model sent is checked as it is.
    if (!fromModel)
      return {
        ...base,
        argumentProblems: null,
        unchecked: 'the instrumentation recorded its arguments as text, not JSON',
      };
  }
  const check = checkArguments(tool.parameters, args, budget, options);
  if (check.status === 'unchecked')
    return { ...base, argumentProblems: null, unchecked: check.reason };
  return {
    ...base,
    argumentProblems: check.status === 'valid' ? [] : check.problems,
    ...(check.notes && { notes: check.notes }),
  };
}

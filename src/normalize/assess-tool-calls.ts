import { pastJsonBounds } from './attribute-values.js';
import { INPUT_BOUNDS } from './input-bounds.js';
import {
  checkArguments,
  traceCheckBudget,
  type CheckBudget,
  type CheckOptions,
} from './check-arguments.js';
import { spanIndexOf, type NormalizedTrace } from './normalize-trace.js';
import { toolNames } from './canonical-tool-name.js';
import {
  extractOfferedTools,
  findOfferedTool,
  offeredToCall,
  type OfferedToCall,
  type OfferedToolsBySpan,
} from './offered-tools.js';
import type { FallbackSchema, FallbackSchemas, SchemaSource } from './schema-source.js';
import type { SpanIndex } from './span-index.js';
import type { OfferedTool } from './tool-definitions.js';
import type { ToolCall } from './tool-call.js';

/** What a trace shows of one call beyond its outcome: was it offered, were its arguments valid. */
export interface ToolCallAssessment {
  call: ToolCall;
  /**
   * Whether the tool was among those offered to the model call that requested it; `null` when the
   * trace records no offered tools for it.
   */
  offered: boolean | null;
  /**
   * The tools offered to that model call (names), when `offered` is not `null`: one list shared
   * by every call offered the same tools (a model span may offer thousands to thousands of calls).
   */
  offeredNames?: readonly string[];
  /**
   * Its arguments' problems against the schema offered (`path: message`), `[]` when they are
   * valid; `null` when they were not checked (see `unchecked`).
   */
  argumentProblems: string[] | null;
  /** Why the arguments were not checked, when `argumentProblems` is `null`. */
  unchecked?: string;
  /** What of the schema was not applied (a pattern the linear-time engine cannot run). */
  notes?: string[];
  /**
   * Where the schema applied came from (the trace's own, learned from recent traffic, or given in
   * config), whenever one was: also when the arguments were left unchecked past a bound.
   */
  schemaSource?: SchemaSource;
}

/** Every call of a trace assessed (in `toolSequence` order), and what the trace records at all. */
export interface ToolCallsAssessment {
  calls: ToolCallAssessment[];
  /** The trace records which tools were offered to a model, somewhere. */
  offeredRecorded: boolean;
  /** Some offered tool has a JSON Schema in the trace. */
  schemasRecorded: boolean;
  /**
   * Schemas from outside the trace were looked up for its calls without one (see
   * {@link setFallbackSchemas}), whether or not any was found.
   */
  fallbackConsulted: boolean;
}

type TraceCalls = Pick<NormalizedTrace, 'spans' | 'toolSequence'>;

const assessed = new WeakMap<object, ToolCallsAssessment>();
const fallbacks = new WeakMap<object, FallbackSchemas>();
const offeredOf = new WeakMap<object, OfferedToolsBySpan>();
const resolvedOf = new WeakMap<object, Resolved[]>();

/** What the trace offers the model call behind one call: the list, and the tool in it. */
interface Resolved {
  applies: OfferedToCall | undefined;
  tool: OfferedTool | undefined;
}

/**
 * Distinct tools one trace may look up schemas for (see {@link toolsWithoutSchema}): a trace of
 * thousands of distinct names asks for its first ones only.
 */
export const MAX_FALLBACK_TOOLS = 64;

/**
 * Gives the trace's calls without a schema of their own `fallback` (by folded tool name), for
 * {@link assessToolCalls}: set by the scoring loop before any scorer reads the trace, so every
 * reader (the scorers, the store, the counters) assesses the calls alike. A trace's own schema
 * always wins: a fallback applies only where the trace records no schema for the tool (no tools
 * offered, or the tool offered by name alone), never to a tool the model was not offered.
 */
export function setFallbackSchemas(trace: TraceCalls, fallback: FallbackSchemas): void {
  fallbacks.set(trace, fallback);
  assessed.delete(trace);
}

/**
 * The tools each span of the trace shows were offered to a model (read once per trace). `index`:
 * the trace's spans by id, when the caller has them.
 */
export function offeredToolsOf(trace: TraceCalls, index?: SpanIndex): OfferedToolsBySpan {
  let offered = offeredOf.get(trace);
  if (!offered)
    offeredOf.set(
      trace,
      (offered =
        trace.toolSequence.length === 0
          ? new Map()
          : extractOfferedTools(trace.spans, undefined, index)),
    );
  return offered;
}

/**
 * The names (as called) of the trace's tools whose calls have no schema in the trace, each tool
 * once, at most {@link MAX_FALLBACK_TOOLS}: what a fallback is looked up for. Pure.
 */
export function toolsWithoutSchema(trace: TraceCalls): string[] {
  const out = new Map<string, string>();
  const resolved = resolve(trace);
  trace.toolSequence.forEach((call, i) => {
    const { applies, tool } = resolved[i]!;
    if (applies && (!tool || tool.parameters !== undefined)) return;
    const folded = toolNames(call.rawName).folded;
    if (out.size < MAX_FALLBACK_TOOLS && !out.has(folded)) out.set(folded, call.rawName);
  });
  return [...out.values()];
}

function resolve(trace: TraceCalls): Resolved[] {
  let resolved = resolvedOf.get(trace);
  if (resolved) return resolved;
  // The trace's own index, built for its root already: asking which copy of an offering span
  // counts (`isCounted`) then walks nothing more.
  const index = spanIndexOf(trace);
  const offered = offeredToolsOf(trace, index);
  resolved = trace.toolSequence.map(call => {
    const applies = offeredToCall(call, offered, index);
    return { applies, tool: applies && findOfferedTool(applies.tools, call.rawName) };
  });
  resolvedOf.set(trace, resolved);
  return resolved;
}

/**
 * Assesses each of the trace's calls against the tools offered to the model call that requested
 * it (see `offeredToCall`): a tool that was not offered is `offered: false`; the arguments of one
 * that was are checked against its JSON Schema ({@link checkArguments}). A call whose trace
 * records no schema for its tool is checked against its fallback (`options.fallback`, else the
 * one set with {@link setFallbackSchemas}), when there is one; `schemaSource` says which schema
 * applied. All of the trace's checks run within one budget of work (`traceCheckBudget`): past it,
 * a call is unchecked with the reason. Arguments that look like JSON but do not parse are
 * invalid; other text is checked as it is when a model sent it, and left unchecked when an
 * instrumentation recorded it on its own tool span (LangChain records a one-argument tool's input
 * bare). Pure; computed once per trace object (the first caller's `options` hold: the scoring
 * path's `tool_arguments` runs before the store reads it).
 */
export function assessToolCalls(
  trace: TraceCalls,
  options: Pick<CheckOptions, 'assertFormats'> & { fallback?: FallbackSchemas } = {},
): ToolCallsAssessment {
  let result = assessed.get(trace);
  if (result) return result;
  // Resolved first: it reads the offered tools with the span index it makes, and keeps them.
  const resolved = resolve(trace);
  const offered = offeredToolsOf(trace);
  const fallback = options.fallback ?? fallbacks.get(trace);
  // One budget for the trace's checks: a trace of many hostile calls costs no more than the bound.
  const budget = traceCheckBudget();
  result = {
    calls: trace.toolSequence.map((call, i) =>
      assessCall(call, resolved[i]!, fallback, budget, options),
    ),
    offeredRecorded: offered.size > 0,
    schemasRecorded: [...offered.values()].some(tools =>
      tools.some(t => t.parameters !== undefined),
    ),
    fallbackConsulted: fallback !== undefined,
  };
  assessed.set(trace, result);
  return result;
}

function assessCall(
  call: ToolCall,
  { applies, tool }: Resolved,
  fallback: FallbackSchemas | undefined,
  budget: CheckBudget,
  options: Pick<CheckOptions, 'assertFormats'>,
): ToolCallAssessment {
  const given = (): FallbackSchema | undefined => fallback?.get(toolNames(call.rawName).folded);
  if (!applies) {
    const found = given();
    const base = { call, offered: null } as const;
    if (found) return checkCall(base, call, found.schema, found.source, budget, options);
    return {
      ...base,
      argumentProblems: null,
      unchecked: 'the trace records no tools offered to the model',
    };
  }
  const offeredNames = namesOf(applies.tools);
  if (!tool)
    return {
      call,
      offered: false,
      offeredNames,
      argumentProblems: null,
      unchecked: `${call.name} was not offered to the model`,
    };
  const base = { call, offered: true, offeredNames } as const;
  if (tool.parameters === undefined) {
    const found = given();
    if (found) return checkCall(base, call, found.schema, found.source, budget, options);
    return {
      ...base,
      argumentProblems: null,
      unchecked: `the trace records no schema for ${call.name}`,
    };
  }
  return checkCall(base, call, tool.parameters, { kind: 'trace' }, budget, options);
}

const namesByList = new WeakMap<readonly OfferedTool[], readonly string[]>();

/**
 * The names of a list of offered tools, made once per list: a list of its own for each call was
 * the calls times the tools (3,000 calls of a span offering 3,000 tools, 9 million names).
 */
function namesOf(tools: readonly OfferedTool[]): readonly string[] {
  let names = namesByList.get(tools);
  if (!names) namesByList.set(tools, (names = tools.map(t => t.name)));
  return names;
}

/** A call's arguments checked against `schema`, from `source`. */
function checkCall(
  base: Pick<ToolCallAssessment, 'call' | 'offered' | 'offeredNames'>,
  call: ToolCall,
  schema: unknown,
  schemaSource: SchemaSource,
  budget: CheckBudget,
  options: Pick<CheckOptions, 'assertFormats'>,
): ToolCallAssessment {
  // The model's request where the trace records it; what the tool span ran with only when that
  // is the only record (a framework may add fields before running the tool).
  const fromModel = call.source === 'requested' || call.requestedArguments !== undefined;
  const args = call.requestedArguments !== undefined ? call.requestedArguments : call.arguments;
  if (args === undefined)
    return {
      ...base,
      argumentProblems: null,
      unchecked: 'its arguments are not recorded',
      schemaSource,
    };
  if (typeof args === 'string') {
    if (/^\s*[[{]/.test(args)) {
      // JSON text normalization's bounds left unparsed (`parseMaybeJson`) is no invalid JSON.
      if (pastJsonBounds(args) !== undefined)
        return {
          ...base,
          argumentProblems: null,
          unchecked: `its arguments are too large to check (JSON text longer than ${INPUT_BOUNDS.maxJsonChars} characters or nested deeper than ${INPUT_BOUNDS.maxJsonDepth} levels is left unparsed)`,
          schemaSource,
        };
      return { ...base, argumentProblems: ['/: the arguments are not valid JSON'], schemaSource };
    }
    // A tool span may record a lone argument bare; what a model sent is checked as it is.
    if (!fromModel)
      return {
        ...base,
        argumentProblems: null,
        unchecked: 'the instrumentation recorded its arguments as text, not JSON',
        schemaSource,
      };
  }
  const check = checkArguments(schema, args, budget, options);
  if (check.status === 'unchecked')
    return { ...base, argumentProblems: null, unchecked: check.reason, schemaSource };
  return {
    ...base,
    argumentProblems: check.status === 'valid' ? [] : check.problems,
    ...(check.notes && { notes: check.notes }),
    schemaSource,
  };
}

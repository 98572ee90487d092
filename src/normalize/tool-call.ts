/** Where a tool call was seen: a span that ran the tool, or an LLM span whose model asked for it. */
export type ToolCallSource = 'executed' | 'requested';

/**
 * How a call ended: `ok` (no failure recorded), `error` (the tool ran and failed: span status,
 * exception event, or a failure in its result), `refused` (the framework did not run it: its
 * arguments failed the tool's schema, no tool has its name, or the app denied it when asked to
 * approve it, as the AI SDK's tool approval records: never run, so neither a success nor a
 * failure of the tool).
 */
export type ToolCallOutcome = 'ok' | 'error' | 'refused';

/**
 * One tool call, from whichever convention reported it. A call reported several times (an
 * executed span plus the model's request, or two nested instrumentations) appears once.
 */
export interface ToolCall {
  /** As first seen, trimmed, NFC, namespace stripped: `functions.get_weather` → `get_weather`. */
  name: string;
  /** Exactly as the trace spelled it. Scorers with `normalize: false` compare this. */
  rawName: string;
  /** Case and separators folded, aliases applied: `getWeather` → `get_weather`. */
  canonicalName: string;
  /** The model's tool-call id (`gen_ai.tool.call.id`, `ai.toolCall.id`, …), when recorded. */
  callId: string | undefined;
  /** Parsed JSON when the trace recorded JSON, else the raw value; `undefined` when not recorded. */
  arguments: unknown;
  /**
   * What the model asked for, when the trace records its request beside the span that ran the
   * call: the arguments `tool_arguments` checks, since a framework may change them before running
   * the tool (LangChain injects its state and the call id). `undefined` otherwise.
   */
  requestedArguments?: unknown;
  /** The tool's return value, parsed like `arguments`. */
  result: unknown;
  /** `error` when the call failed or was refused (see {@link ToolCall.outcome}), else `ok`. */
  status: 'ok' | 'error';
  /** How the call ended, read where its producer records a failure (see `docs/frameworks.md`). */
  outcome: ToolCallOutcome;
  /** The error message or type, for failed and refused calls. */
  error: string | undefined;
  /** The span that reported the call (the tool span, or the LLM span that requested it). */
  spanId: string;
  /**
   * The model span whose response asked for the call, when the trace records the request: the
   * tools offered to that model call are the ones its arguments are checked against.
   */
  requestedBy?: string | undefined;
  /** When the call started: the tool span's start, or the requesting LLM span's end. */
  startTimeUnixNano: bigint;
  /** How long the tool span ran, in milliseconds; `undefined` for a call no tool span ran. */
  durationMs?: number | undefined;
  source: ToolCallSource;
  /** Id of the extractor that found the call, e.g. `vercel-ai-sdk`. */
  convention: string;
  /**
   * `logs` when the call was read from a GenAI log record (the OTLP logs signal) joined to its
   * span, `undefined` when from a span or span event.
   */
  signal?: 'logs' | undefined;
  /**
   * The agent that made the call: the nearest enclosing agent span (`invoke_agent`, OpenInference
   * `AGENT`, …); `undefined` when no agent span encloses it (the trace's `agentName` then).
   */
  agent?: string | undefined;
  /** In a session's trace (see `sessionTrace`): the turn it was made in, from 0. */
  turn?: number;
}

/** What an extractor reports before names are normalized and duplicates merged. */
export interface ExtractedCall {
  rawName: string;
  callId?: string | undefined;
  arguments?: unknown;
  result?: unknown;
  status?: 'ok' | 'error';
  /**
   * The framework did not run the call (its input failed the schema, no such tool, the app
   * denied it).
   */
  refused?: boolean;
  error?: string | undefined;
  /** `logs` when read from a log record joined as a span event (see `ToolCall.signal`). */
  signal?: 'logs' | undefined;
}

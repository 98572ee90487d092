/** One expected tool call in `expectedCalls`. */
export interface ExpectedCall {
  name: string;
  /** Expected arguments; compared by the scorer's argument mode. Absent: arguments are not checked. */
  args?: unknown;
  /** The call may be absent without failing; if present it is not an extra call. */
  optional?: boolean;
  /** The call must not happen (with `agent`: must not be made by that agent). */
  forbidden?: boolean;
  /** The agent that must make the call (multi-agent traces: see `ToolCall.agent`). */
  agent?: string;
}

/** A tool the agent could have called, for LLM judges. */
export interface AvailableTool {
  name: string;
  description?: string;
}

/** What one turn of a session test case expects (`turns:`), matched to the session's traces in start order. */
export interface TurnExpectation {
  /** `tool_trajectory`: the calls expected in this turn. */
  expectedCalls?: ExpectedCall[];
  /** `tool_trajectory`: the tools expected in this turn, in order (calls with any arguments). */
  expectedTools?: string[];
  /** The agent that handles the turn: it makes the turn's expected calls (unless they name another). */
  agent?: string;
  /** Tools that must not be called in this turn. */
  forbidden?: string[];
}

/** An ordering rule (`before: [a, b]`): `a` must have been called before each call of `b`. */
export type BeforeRule = readonly [first: string, then: string];

/** A scorer named in a suite, with its options. */
export interface ScorerRef {
  name: string;
  options: Record<string, unknown>;
}

/** One test case of a suite, after validation. */
export interface TestCase {
  id: string;
  input?: string;
  expectedTool?: string;
  expectedToolOrder?: string[];
  strictMode?: boolean;
  expectedTools?: string[];
  expectedCalls?: ExpectedCall[];
  /** `agent_routing`: the agents expected to take control, in order (the route). */
  expectedAgents?: string[];
  groundTruth?: string;
  availableTools?: AvailableTool[];
  /**
   * A conversation: scored on the session its traces belong to (one trace per turn, grouped by
   * session id), not on each trace alone. Expectations at the case level are session-wide.
   */
  session?: boolean;
  /** A session's turns, in order: each turn's own expectations (`tool_trajectory` reads them). */
  turns?: TurnExpectation[];
  /** `tool_trajectory`: tools that must never be called (in a session: in any turn). */
  forbidden?: string[];
  /** `tool_trajectory`: ordering rules, each `[a, b]`: `a` called before every call of `b`. */
  before?: BeforeRule[];
  /** The scorers that run on this case (suite defaults merged with the case's own). */
  scorers: ScorerRef[];
  /** Anything else the suite author put on the case, for custom scorers. */
  metadata?: Record<string, unknown>;
}

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
  /** The scorers that run on this case (suite defaults merged with the case's own). */
  scorers: ScorerRef[];
  /** Anything else the suite author put on the case, for custom scorers. */
  metadata?: Record<string, unknown>;
}

import { createHash } from 'node:crypto';
import type { Config } from '../config/config-schema.js';
import { toolArguments } from '../score/deterministic/tool-arguments.js';
import { toolErrors } from '../score/deterministic/tool-errors.js';
import { toolLoops } from '../score/deterministic/tool-loops.js';
import type { ResolvedScorer } from '../score/run-scorers.js';
import type { ToolHealthRule } from '../score/scoring-plan.js';
import type { Scorer } from '../score/scorer.js';
import { isSampled } from './production-rules.js';

/**
 * Tool health from the config: the three reference-free scorers with the configured limits, on
 * the share of traces `sampleRate` keeps (by trace id, as rules sample); `undefined` when off.
 * Error texts and repeated arguments stay out of results when `results.storeContent` is off.
 */
export function resolveToolHealth(
  // Schema learning and given schemas are the scoring runtime's (see `createScoringRuntime`).
  // Conversations (`sessions`, `sessionSampleRate`) are off unless given.
  config: Pick<Config, 'results'> & {
    toolHealth: Omit<
      Config['toolHealth'],
      'learnSchemas' | 'schemas' | 'sessions' | 'sessionSampleRate'
    > &
      Partial<Pick<Config['toolHealth'], 'sessions' | 'sessionSampleRate'>>;
  },
): ToolHealthRule | undefined {
  const health = config.toolHealth;
  if (!health.enabled) return undefined;
  const content = config.results.storeContent;
  const resolve = <O>(scorer: Scorer<O>, options: Record<string, unknown>): ResolvedScorer => ({
    scorer: scorer,
    options: scorer.parseOptions(options),
  });
  const errors = resolve(toolErrors, { maxErrorRate: health.maxErrorRate, errorText: content });
  const loops = resolve(toolLoops, {
    minRepeats: health.minRepeats,
    showArguments: content,
    ...(health.maxCallsPerTool !== undefined && { maxCallsPerTool: health.maxCallsPerTool }),
  });
  return {
    sampled: traceId => isSampled(traceId, health.sampleRate),
    scorers: [errors, resolve(toolArguments, { assertFormats: health.assertFormats }), loops],
    ...(health.sessions && {
      // Arguments are checked per trace; across a conversation, repeats and failures are new.
      sessions: {
        sampled: sessionId => isSessionSampled(sessionId, health.sessionSampleRate ?? 1),
        scorers: [errors, loops],
      },
    }),
  };
}

/**
 * Deterministic sampling by session id: a session id is any text (no random bits to read, unlike
 * a trace id), so its SHA-256's first 48 bits are compared with `rate × 2^48`. Every turn of a
 * conversation, on every process, is decided alike, and a higher rate keeps a superset. The id is
 * at most 256 characters (`findSessionId` cuts it), so the hash is bounded work.
 */
export function isSessionSampled(sessionId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  const head = createHash('sha256').update(sessionId).digest().readUIntBE(0, 6);
  return head < rate * 2 ** 48;
}

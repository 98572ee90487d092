import type { SpanDigest } from '../ingest/span-digest.js';
import { sessionTurnSpans } from '../normalize/session-turn-spans.js';
import type { TraceRun } from '../score/trace-run.js';
import { sessionTurnOf, type SessionTurnInput } from './session-policy.js';

/** What follows a scored trace's delivery, with the spans it needs. */
export interface DeliveryFollowUps {
  /** Its deterministic pass left LLM scorers: queue its judge pass. */
  judge: boolean;
  /** It joins this session (sessions are assembled and it carries a session id). */
  turn: SessionTurnInput | undefined;
  /** Its spans, for the judge pass and the session: all of them for a judge pass, else only what session scoring reads. */
  spans: readonly SpanDigest[];
}

/**
 * What a driver does once a trace's evaluation spans are delivered: its judge pass, when
 * `judges` (the driver runs one) and its pass left LLM scorers; its session turn, when
 * `assemblesSessions`. `undefined` when neither follows: the trace's spans need not be kept
 * while its export runs (a slow backend may keep thousands of traces waiting). When only the
 * session follows, its spans are pruned to what session scoring reads (`sessionTurnSpans`, its
 * ids read where this pass read them): a session holds its turns for hours.
 */
export function deliveryFollowUps(
  run: TraceRun,
  traceId: string,
  spans: readonly SpanDigest[],
  options: { judges: boolean; assemblesSessions: boolean },
): DeliveryFollowUps | undefined {
  const judge = options.judges && run.results.some(r => r.deferred.length > 0);
  const turn = options.assemblesSessions ? sessionTurnOf(run, traceId) : undefined;
  if (!judge && !turn) return undefined;
  const ids = [run.testCaseIdAttribute, run.sessionIdAttribute].filter(a => a !== undefined);
  return { judge, turn, spans: judge ? spans : sessionTurnSpans(spans, ids) };
}

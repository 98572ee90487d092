import type { Config } from '../config/config-schema.js';
import type { ExportBacklog } from '../emit/export-backlog.js';
import type { ResultsStore } from '../results/results-store.js';
import { sessionRecordKey } from '../results/run-record-key.js';
import { isExportGiveUp } from './export-retry.js';
import { failedSessionPassWording } from './failed-session-pass-wording.js';
import type { FailedSessionPass } from './memory-session-assembler-options.js';
import type { DriverEvents } from './queue-driver.js';

/**
 * Makes a session part's pass that failed after its retries visible where a trace's is, on
 * either driver (the bullmq driver's when its job failed its last attempt: `end` `kept`). An export given up on (or `end` undefined: its results are stored) is the pass's
 * export only: the log says so and the part's record says its export failed. Else the part's run
 * record ends `failed` with why (its turns, cut and what it continues kept) and the log says so;
 * where nothing holds its turns to score them again (not `held`, not `kept`), each is reported
 * dropped (`onSessionTurnDropped`, reason `failed`) and each turn's record says it was not scored
 * with its session. Either way the part is counted failed (`onSessionFailed`) and leaves the
 * export backlog (`backlog`), as a trace given up on does. Never rejects: a results store that
 * fails is said in the log.
 */
export async function endFailedSessionPass(
  config: Readonly<Config>,
  results: Pick<ResultsStore, 'recordExport' | 'recordFailure' | 'amendRun'>,
  backlog: Pick<ExportBacklog, 'settled'>,
  events: Pick<DriverEvents, 'log' | 'onSessionFailed' | 'onSessionTurnDropped'>,
  sessionId: string,
  error: unknown,
  { pass, traceIds, end }: FailedSessionPass,
): Promise<void> {
  events.onSessionFailed?.(sessionId, pass.part);
  const message = error instanceof Error ? error.message : String(error);
  const key = sessionRecordKey(sessionId, pass.part);
  try {
    // Its export waits for nothing now (the evaluation-span sink keeps a part by its record key).
    await backlog.settled(key);
    if (end === undefined || isExportGiveUp(error)) {
      events.log(
        `spanscore: gave up exporting the evaluation spans of session ${JSON.stringify(sessionId)} part ${pass.part} (its results are stored; the part is not scored again for it): ${message}`,
      );
      if (config.results.write)
        await results.recordExport(key, { state: 'failed', error: message });
      return;
    }
    const said = failedSessionPassWording(sessionId, pass, traceIds.length, message, end);
    const turnsDropped = end !== 'held' && end !== 'kept';
    if (turnsDropped)
      for (const traceId of traceIds) events.onSessionTurnDropped?.(sessionId, traceId, 'failed');
    events.log(said.line);
    if (!config.results.write) return;
    await results.recordFailure(key, 'deterministic', new Error(said.partDetail), {
      id: sessionId,
      part: pass.part,
      traceIds,
      cut: pass.cut?.code ?? null,
      cutReason: pass.cut?.reason ?? null,
      continues: pass.continues ?? null,
    });
    if (turnsDropped)
      for (const traceId of traceIds) await results.amendRun(traceId, { reason: said.turnReason });
  } catch (e) {
    events.log(`spanscore: results store: ${(e as Error).message}`);
  }
}

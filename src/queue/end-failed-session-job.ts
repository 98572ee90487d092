import type { Config } from '../config/config-schema.js';
import type { ResultsStore } from '../results/results-store.js';
import { sessionRecordKey } from '../results/run-record-key.js';
import { isExportGiveUp } from './export-retry.js';
import { failedSessionPassWording } from './failed-session-pass-wording.js';
import type { SessionPass } from './session-policy.js';

/**
 * What the bullmq driver makes of a session part's job that failed its last attempt (BullMQ then
 * keeps it in its failed set), so that its end is visible where a trace's is: the part's run
 * record ends `failed` with why (its turns, cut and what it continues kept; its turns stay in
 * Redis, so only a later turn scores it again, and their own records are left as they are), and
 * the log says so. An export given up on is the pass's export only: its results are stored, and
 * its record's export says it failed. Never rejects: a results store that fails is said in the log.
 */
export async function endFailedSessionJob(
  config: Readonly<Config>,
  results: Pick<ResultsStore, 'recordExport' | 'recordFailure'>,
  log: (line: string) => void,
  sessionId: string,
  error: unknown,
  { pass, traceIds }: { pass: SessionPass; traceIds: string[] },
): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const key = sessionRecordKey(sessionId, pass.part);
  try {
    if (isExportGiveUp(error)) {
      log(
        `spanscore: gave up exporting the evaluation spans of session ${JSON.stringify(sessionId)} part ${pass.part} (its results are stored): ${message}`,
      );
      if (config.results.write)
        await results.recordExport(key, { state: 'failed', error: message });
      return;
    }
    const said = failedSessionPassWording(sessionId, pass, traceIds.length, message, 'kept');
    log(said.line);
    if (!config.results.write) return;
    await results.recordFailure(key, 'deterministic', new Error(said.partDetail), {
      id: sessionId,
      part: pass.part,
      traceIds,
      cut: pass.cut?.code ?? null,
      cutReason: pass.cut?.reason ?? null,
      continues: pass.continues ?? null,
    });
  } catch (e) {
    log(`spanscore: results store: ${(e as Error).message}`);
  }
}

import type { RedisClient } from './redis-connection.js';
import { ADD_RESULTS } from './lua/add-results.js';
import { AMEND_RUN } from './lua/amend-run.js';
import { APPEND_RUN } from './lua/append-run.js';
import { RECORD_EXPORT } from './lua/record-export.js';
import { TRIM_RESULTS } from './lua/trim-results.js';

/** The results store's scripts, as commands on its connection (see {@link withResultsStoreScripts}). */
export interface ResultsStoreCommands {
  spanscoreAppendRun(runKey: string, ...args: string[]): Promise<number>;
  spanscoreRecordExport(runKey: string, ...args: string[]): Promise<number>;
  /** `lua/amend-run.ts`: 1 written, the value now when its record line changed, null for none. */
  spanscoreAmendRun(
    runKey: string,
    readSha1: string,
    recordLine: string,
    ttlMs: string,
  ): Promise<1 | string | null>;
  spanscoreAddResults(
    stream: string,
    index: string,
    count: string,
    ...args: string[]
  ): Promise<string>;
  spanscoreTrimResults(
    stream: string,
    index: string,
    count: string,
    ...args: string[]
  ): Promise<number>;
}

/**
 * Defines the results store's Lua scripts (lua/: a run record's append, amendment and export line, the
 * streams' appends and trims) on a connection; ioredis runs each by EVALSHA, loading it on first
 * use, also on every node of a cluster.
 */
export function withResultsStoreScripts(redis: RedisClient): RedisClient & ResultsStoreCommands {
  const commands = redis as RedisClient & ResultsStoreCommands;
  commands.defineCommand('spanscoreAppendRun', { numberOfKeys: 1, lua: APPEND_RUN });
  commands.defineCommand('spanscoreRecordExport', { numberOfKeys: 1, lua: RECORD_EXPORT });
  commands.defineCommand('spanscoreAmendRun', { numberOfKeys: 1, lua: AMEND_RUN });
  commands.defineCommand('spanscoreAddResults', { numberOfKeys: 3, lua: ADD_RESULTS });
  commands.defineCommand('spanscoreTrimResults', { numberOfKeys: 3, lua: TRIM_RESULTS });
  return commands;
}

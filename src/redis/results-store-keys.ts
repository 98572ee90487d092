/**
 * The Redis keys of the results store under one prefix (what each holds: see
 * `createRedisResultsStore`). The stream keys share the hash tag `{r}`, so that one script call
 * reaches them all on a cluster; a run record's key is on its trace id's slot.
 */
export interface ResultsStoreKeys {
  /** The results stream, its index of entries and its result count. */
  stream: string;
  streamIndex: string;
  streamCount: string;
  /** The trace list: one line per pass written (`<trace id> <record time>`), capped at `maxRuns`. */
  listStream: string;
  listIndex: string;
  listCount: string;
  /** Traces rescored, each scored with the stream order where its replacing pass's results start. */
  replacedSet: string;
  /** The hash of one minute's counters. */
  minuteKey: (minuteUnixMs: number) => string;
  /** The hash of one minute's failure signatures. */
  failuresKey: (minuteUnixMs: number) => string;
  /** A trace's (or session's) run record. */
  runKey: (traceId: string) => string;
  /** A run's export hash in the layout before the export line (read, never written). */
  legacyExportKey: (traceId: string) => string;
}

/** The results store's keys under `prefix`. Pure. */
export function resultsStoreKeys(prefix: string): ResultsStoreKeys {
  return {
    stream: `${prefix}:results:{r}:stream`,
    streamIndex: `${prefix}:results:{r}:index`,
    streamCount: `${prefix}:results:{r}:count`,
    listStream: `${prefix}:results:{r}:traces`,
    listIndex: `${prefix}:results:{r}:traces:index`,
    listCount: `${prefix}:results:{r}:traces:count`,
    replacedSet: `${prefix}:results:{r}:replaced`,
    minuteKey: minute => `${prefix}:results:{r}:m:${minute}`,
    failuresKey: minute => `${prefix}:results:{r}:f:${minute}`,
    runKey: traceId => `${prefix}:run:{${traceId}}`,
    legacyExportKey: traceId => `${prefix}:run:{${traceId}}:export`,
  };
}

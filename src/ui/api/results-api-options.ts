import type { RefusedRequests } from '../../ingest/refusal-tally.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import type { OpenSession } from '../../queue/session-policy.js';
import type { TraceProgress } from '../../queue/trace-readiness.js';
import type { SchemaSource } from '../../normalize/schema-source.js';
import type { ResultsStore } from '../../results/results-store.js';

/** What the results API reads. */
export interface ResultsApiOptions {
  store: ResultsStore;
  /** A trace buffered but not scored yet, or being scored, from the queue driver. */
  pendingTrace: (traceId: string) => Promise<(TraceProgress & { scoring?: boolean }) | undefined>;
  /**
   * The sessions the queue driver holds open, newest first, at most `limit`, for
   * `/api/v1/sessions?state=open`. @defaultValue none: the list is empty
   */
  openSessions?: (limit: number) => Promise<OpenSession[]>;
  /** The spans of such a trace, for the inspect view; `undefined` once scored. */
  pendingSpans?: (traceId: string) => Promise<SpanDigest[] | undefined>;
  /**
   * The attributes a test case id is read from, for the inspect view of a buffered trace (the
   * loaded suites' and the defaults). @defaultValue the defaults
   */
  testCaseIdAttributes?: readonly string[];
  /**
   * Bearer tokens by scope: with any read token, `/api/v1` needs one (401 without or with an
   * unknown token, 403 with an ingest-only one). @defaultValue none
   */
  tokens?: { ingest: readonly string[]; read: readonly string[] };
  /** Origins a browser may read `/api/v1` from (CORS); none: no CORS headers. */
  corsOrigins?: readonly string[];
  /** Whether evaluation spans are exported, and the traces waiting for a retried export. */
  exportStatus?: () => Promise<{ enabled: boolean; waiting: number; oldestAgeSeconds: number }>;
  /**
   * The requests this process's receiver refused whole in a time range, by reason (see
   * `createRefusalTally`), for the summary's `refused`. @defaultValue none: `refused` is empty
   */
  refusedRequests?: (fromUnixMs: number, toUnixMs: number) => RefusedRequests[];
  /** `results.storeContent`: run records keep tool-call arguments and results. @defaultValue true */
  storeContent?: boolean;
  /** For the page: a link to the user's trace UI, `{traceId}` replaced. */
  traceUrlTemplate?: string | undefined;
  retentionMs: number;
  driver: 'memory' | 'bullmq';
  /**
   * The schema a call of each tool of `services` without one of its own would be checked against
   * now (given in config, or learned), by service and folded tool name, for `/api/v1/tools`.
   * @defaultValue none: every tool's `schema` is `null`
   */
  schemaSources?: (services: readonly string[]) => Promise<Map<string, Map<string, SchemaSource>>>;
  now?: () => number;
}

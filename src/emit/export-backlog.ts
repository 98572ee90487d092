/**
 * Traces whose evaluation spans failed to export and wait for a retry: the figure behind
 * `spanscore_exports_waiting` and `spanscore_export_oldest_pending_seconds`, so a long backend
 * outage shows before any job gives up. The memory driver keeps it in the process; the BullMQ
 * driver in Redis (`redis-export-backlog.ts`), shared by every worker, as a retry may run anywhere.
 */
export interface ExportBacklog {
  /** An export of the trace's evaluation spans failed; its first failure time is kept. */
  failed(traceId: string): Promise<void>;
  /**
   * Its export succeeded, or its job gave up: the trace leaves the backlog. When this rejects
   * (its store away), the backlog removes it at a later call that succeeds, or lets it age out.
   */
  settled(traceId: string): Promise<void>;
  /** How many traces wait for a retried export, and how long the oldest has waited. */
  stats(): Promise<{ waiting: number; oldestAgeSeconds: number }>;
}

/** The memory driver's backlog: a map from trace id to its first failure, in this process. */
export function createMemoryExportBacklog(now: () => number = Date.now): ExportBacklog {
  const failing = new Map<string, number>();
  return {
    failed(traceId) {
      if (!failing.has(traceId)) failing.set(traceId, now());
      return Promise.resolve();
    },
    settled(traceId) {
      failing.delete(traceId);
      return Promise.resolve();
    },
    stats() {
      let oldest = Infinity;
      for (const at of failing.values()) oldest = Math.min(oldest, at);
      return Promise.resolve({
        waiting: failing.size,
        oldestAgeSeconds: failing.size ? (now() - oldest) / 1000 : 0,
      });
    },
  };
}

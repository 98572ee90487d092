import { configSchema } from '../../src/config/config-schema.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { memoryAssemblyLimits } from '../../src/queue/memory-queue-driver.js';
import {
  createMemoryTraceAssembler,
  type MemoryTraceAssembler,
  type MemoryTraceAssemblerOptions,
} from '../../src/queue/memory-trace-assembler.js';

/** The limits and retries the config gives the memory trace assembler by default. */
export const ASSEMBLY_LIMITS = memoryAssemblyLimits(configSchema.parse({}));

/** A trace is scored 2 s after its latest span once its root ended, or 30 s after its first. */
export const ASSEMBLY_POLICY = { settleMs: 2000, maxWaitMs: 30_000 };

/**
 * A memory trace assembler with the default limits and {@link ASSEMBLY_POLICY} (`options` win),
 * whose scoring only records each trace it is given: its id and its spans' names, sorted, in the
 * order traces were scored.
 */
export function recordingAssembler(options: Partial<MemoryTraceAssemblerOptions> = {}): {
  assembler: MemoryTraceAssembler;
  processed: Array<{ traceId: string; names: string[] }>;
} {
  const processed: Array<{ traceId: string; names: string[] }> = [];
  const assembler = createMemoryTraceAssembler({
    ...ASSEMBLY_LIMITS,
    policy: ASSEMBLY_POLICY,
    process: (id: string, list: readonly SpanDigest[]) => {
      processed.push({ traceId: id, names: list.map(s => s.name).sort() });
      return Promise.resolve();
    },
    ...options,
  });
  return { assembler, processed };
}

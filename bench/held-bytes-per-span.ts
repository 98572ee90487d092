import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { agentSpans } from './reading-bench.js';
import type { SideModules } from './side-modules.js';

/** What {@link heldBytesPerSpan} measured. */
export interface HeldFigures {
  spans: number;
  /** Spans the assembler says it holds (every one: nothing was scored). */
  held: number;
  /** Bytes of their attribute records outside the heap, as the assembler counts them. */
  heldBytes: number;
  /** Heap and external memory grown, after a full collection, per buffered span. */
  bytesPerSpan: number;
}

/**
 * The memory driver's bytes held per buffered span, as `test/budgets/held-bytes.child.ts`
 * measures them for its budget, on the modules of one checkout (`m`, for the A/B): 40 requests
 * of 512 agent spans whose calls all differ buffered in a memory trace assembler with the
 * default limits, nothing scored; heap and external memory after two full collections, before
 * and after, per span. The request bodies stay alive throughout. Needs `--expose-gc`.
 */
export async function heldBytesPerSpan(m: SideModules, requests = 40): Promise<HeldFigures> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const bodies = agentSpans(requests + 1, 7, true).map(b =>
    Buffer.from(ProtobufTraceSerializer.serializeRequest(b)!),
  );
  const used = (): number => {
    gc();
    gc();
    const u = process.memoryUsage();
    return u.heapUsed + u.external;
  };
  const assembler = m.createMemoryTraceAssembler({
    ...m.memoryAssemblyLimits(m.configSchema.parse({})),
    policy: { settleMs: 600_000, maxWaitMs: 600_000 },
    maxBufferedSpans: 1_000_000,
    process: () => Promise.resolve(),
  });
  // One request first, so that code, caches and maps exist before measuring.
  await assembler.accept(m.decodeOtlpProtobuf(bodies[0]!).spans);
  const before = used();
  let spans = 0;
  for (const body of bodies.slice(1)) {
    const decoded = m.decodeOtlpProtobuf(body).spans;
    spans += decoded.length;
    await assembler.accept(decoded);
  }
  const after = used();
  const stats = assembler.stats();
  if (bodies.length === 0) throw new Error('unreachable: the bodies are kept to the end');
  return {
    spans,
    held: stats.heldSpans,
    heldBytes: stats.heldBytes,
    bytesPerSpan: (after - before) / spans,
  };
}

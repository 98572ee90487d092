/**
 * Run by `memory-held-bytes.test.ts` in a process of its own (`node --expose-gc --import tsx`):
 * buffers 40 requests of 512 spans (agent traces whose calls all differ, as real ones do) in the
 * memory driver's assembler, nothing scored yet, and prints the heap and external memory the
 * held spans take, per span, as JSON.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { agentSpans } from '../../bench/reading-bench.js';
import { decodeOtlpProtobuf } from '../../src/ingest/decode-otlp-protobuf.js';
import { createMemoryTraceAssembler } from '../../src/queue/memory-trace-assembler.js';
import { CONFIG_DEFAULTS } from '../helpers/config-defaults.js';
import { memoryAssemblyLimits } from '../../src/queue/memory-queue-driver.js';

/** The limits and retries the config gives by default. */
const LIMITS = memoryAssemblyLimits(CONFIG_DEFAULTS);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const bodies = agentSpans(41, 7, true).map(b =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(b)!),
);
const used = (): number => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
};
const assembler = createMemoryTraceAssembler({
  ...LIMITS,
  policy: { settleMs: 600_000, maxWaitMs: 600_000 },
  maxBufferedSpans: 1_000_000,
  process: () => Promise.resolve(),
});
// One request first, so that code, caches and maps exist before measuring.
await assembler.accept(decodeOtlpProtobuf(bodies[0]!).spans);
// The request bodies stay alive throughout: what grows is what the assembler holds.
const before = used();
let spans = 0;
for (const body of bodies.slice(1)) {
  const decoded = decodeOtlpProtobuf(body).spans;
  spans += decoded.length;
  await assembler.accept(decoded);
}
const after = used();
if (bodies.length === 0) throw new Error('unreachable: the bodies are kept to the end');
console.log(
  JSON.stringify({
    spans,
    held: assembler.stats().heldSpans,
    heldBytes: assembler.stats().heldBytes,
    bytesPerSpan: (after - before) / spans,
  }),
);
process.exit(0);

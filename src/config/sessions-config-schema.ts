import { z } from 'zod';
import { positiveInt } from './number-fields.js';

/** The `sessions` section: where a trace's session id is read from, and when a session is scored. */
export const sessionsConfigSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Read a session id from every trace (a conversation, one trace per turn), so that session test cases (`session: true`) are scored on their sessions; off: traces are only scored one by one.',
      ),
    idAttributes: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Span attributes that carry a session id, read after the defaults (`spanscore.session.id`, `gen_ai.conversation.id`, `session.id`, `langfuse.session.id`, `ai.telemetry.metadata.sessionId`, LangSmith metadata and Traceloop association properties `session_id`/`thread_id`/`conversation_id`); a dotted name is also looked for inside JSON attributes.',
      ),
    idleMs: positiveInt()
      .default(600_000)
      .describe(
        "`serve` and `worker`: a session is scored this long after its latest trace (at once when a trace marks the end: `spanscore.session.end = true`, or its framework's metadata, e.g. the AI SDK's `sessionEnd`; see docs/sessions.md); a trace after that scores it again.",
      ),
    maxTraces: positiveInt()
      .default(50)
      .describe(
        'Traces of one session (BullMQ: of one part of it): at this many it is scored as it stands, its result saying it was cut (`max_traces`), and a later turn opens its next part.',
      ),
    maxAgeMs: positiveInt()
      .default(86_400_000)
      .describe(
        'A session (BullMQ: a part of it) is scored as it stands this long after its first trace, its result saying it was cut (`max_age`), and a later turn opens its next part. The memory driver keeps its traces no longer; BullMQ keeps a part this long plus `idleMs` and a margin (its retries, `export.retryMaxAgeMs` for the retries of its export, a stalled job, an hour).',
      ),
    maxOpen: positiveInt()
      .default(1000)
      .describe(
        'Memory driver: sessions held (their turns kept to score them again); when full, the oldest is let go (`spanscore_sessions_evicted_total`), scored first with cut `evicted` when it waits; a later turn of it opens its next part.',
      ),
    maxSessionBytes: positiveInt()
      .default(1_048_576)
      .describe(
        'Bytes one session holds (what session scoring reads of its turns): at this many it is scored as it stands, its result saying it was cut (`max_bytes`), and a later turn opens its continuation.',
      ),
    maxBytes: positiveInt()
      .default(16_777_216)
      .describe(
        "Bytes all open sessions hold together (memory driver: inside its bounded heap, where a held turn's counted bytes are about the heap it takes, and 16 MiB leaves `queue.memoryHeapMb`'s 192 to the trace buffer and results; BullMQ: in Redis). When full, a trace that would open a new session is scored alone and its session not held (said in the log and `spanscore_sessions_refused_total`); sessions already held go on, the oldest let go to make room.",
      ),
  })
  .strict()
  .prefault({})
  .describe('Sessions: the traces of one conversation scored together (see docs/sessions.md).');

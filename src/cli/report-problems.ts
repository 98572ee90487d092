import type { InputProblem } from '../ingest/read-trace-files.js';
import type { CliIo } from './io.js';

/** Input problems named one per line, at most this many; then how many more. */
const MAX_PROBLEMS_SHOWN = 20;

/** Names each rejected file, line or span (or warning) on stderr, as `score`, `suite record` and `inspect` do. */
export function reportProblems(
  problems: readonly InputProblem[],
  io: CliIo,
  kind: 'rejected' | 'warning' = 'rejected',
): void {
  for (const p of problems.slice(0, MAX_PROBLEMS_SHOWN)) {
    const where = [p.file, p.record, p.path].filter(Boolean).join(': ');
    io.stderr.write(
      `spanscore: ${kind === 'warning' ? 'warning:' : kind} ${where}: ${p.message}\n`,
    );
  }
  // An entry that counts a file's unlisted problems stands for that many.
  let more = 0;
  for (const p of problems.slice(MAX_PROBLEMS_SHOWN)) more += p.unlisted ?? 1;
  if (more > 0)
    io.stderr.write(
      `spanscore: … and ${more} more input ${kind === 'warning' ? 'warnings' : 'problems'}\n`,
    );
}

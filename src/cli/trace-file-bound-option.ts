import { Option } from 'commander';
import { TRACE_FILE_LIMITS } from '../ingest/trace-file-limits.js';
import { parsePositive } from './option-parsers.js';

const MIB = 1024 * 1024;

/**
 * `--max-decompressed-mb MB`, the same on every command that reads trace files (`score`,
 * `inspect`, `suite record`): the largest trace file accepted, in MiB, as read or (gzip)
 * decompressed; a positive number, by default `TRACE_FILE_LIMITS.maxFileBytes` (256). A file past
 * it is an input problem naming it and the bound, and the other files are still read. Read the
 * parsed value with {@link traceFileBytes}.
 */
export function traceFileBoundOption(): Option {
  return new Option(
    '--max-decompressed-mb <mb>',
    'largest trace file accepted, in MiB, as read or (gzip) decompressed',
  )
    .argParser(parsePositive)
    .default(TRACE_FILE_LIMITS.maxFileBytes / MIB);
}

/**
 * The option's MiB as `readTraceFiles`' `maxDecompressedBytes`: whole bytes, at least one (a
 * positive MiB under a byte would otherwise refuse every file).
 */
export function traceFileBytes(maxDecompressedMb: number): number {
  return Math.max(1, Math.floor(maxDecompressedMb * MIB));
}

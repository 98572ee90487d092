import { extname } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { readFileAtMost } from '../config/read-file-at-most.js';
import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';
import { checkJsonItems, DEFAULT_DECODE_LIMITS, type DecodeLimits } from './decode-limits.js';
import { decodeOtlpJson, isNotTraceExport } from './decode-otlp-json.js';
import { listTraceFiles } from './list-trace-files.js';
import { decodeOtlpJsonLogs, isNotLogsExport } from './decode-otlp-logs-json.js';
import { decodeOtlpProtobufLogs } from './decode-otlp-logs-protobuf.js';
import { decodeOtlpProtobuf } from './decode-otlp-protobuf.js';
import type { DecodedLogs } from './log-event-carrier.js';
import type { DecodedRequest, SpanDigest } from './span-digest.js';
import { parseWellFormedJson } from './parse-well-formed-json.js';
import { TRACE_FILE_LIMITS } from './trace-file-limits.js';

/** Something in the input that could not be read: a file, a request or line, or one span. */
export interface InputProblem {
  file: string;
  /** `line 3`, `request 2`, or undefined when the whole file is affected. */
  record?: string;
  /** Path inside the request, e.g. `resourceSpans[0].scopeSpans[0].spans[2].traceId`. */
  path?: string;
  message: string;
  /** Set on a file's last entry when it had more than it names: how many it does not name. */
  unlisted?: number;
}

/** Everything read from the inputs. */
export interface TraceFilesResult {
  spans: SpanDigest[];
  problems: InputProblem[];
  /**
   * Input that was read but is probably not what was meant: a JSON object with no
   * `resourceSpans` (a valid, empty export, and also what any other JSON file looks like) reads as
   * zero spans, so it is named here rather than silently ignored. Entries not read though nothing
   * of them is lost are named here too: a file or folder reached a second time (through a symbolic
   * link, or named twice), a pipe or device with a trace file's name in a folder.
   */
  warnings: InputProblem[];
  files: number;
  requests: number;
  /** GenAI log records read (from logs requests), kept in `spans` as carriers of their trace. */
  logRecords: number;
  /** Bytes read from disk (compressed size for gzip files; of a file past the bound, what was read: none of a plain file its size showed past it). */
  bytes: number;
}

/** Options for {@link readTraceFiles}. */
export interface ReadTraceFilesOptions {
  /**
   * Largest trace file accepted, in bytes: a plain file as read, a gzip file decompressed (and as
   * read). A file past it is a problem naming it and the bound, having read at most one byte more
   * (a gzip bomb: decompressed at most this far), and the other files are still read.
   * @defaultValue `TRACE_FILE_LIMITS.maxFileBytes` (256 MiB)
   */
  maxDecompressedBytes?: number;
  /**
   * What each request in a file may cost to decode, as in the receiver; a `.json` file read
   * whole (not as lines) may hold `maxItems` × 4 objects and arrays in all (JSON.parse of four
   * million empty objects takes about a second and 400 MB).
   * @defaultValue `DEFAULT_DECODE_LIMITS`
   */
  limits?: Readonly<DecodeLimits>;
  /**
   * Folders entered below an input folder, through links too (see `listTraceFiles`); a folder past
   * it is a problem naming it and the bound. @defaultValue `TRACE_FILE_LIMITS.maxDepth` (32)
   */
  maxDepth?: number;
  /**
   * Folder entries a listing reads in all; the folder it stops in is a problem naming the bound.
   * @defaultValue `TRACE_FILE_LIMITS.maxEntries` (100,000)
   */
  maxEntries?: number;
  /** Called after each file, e.g. to drive a progress bar. */
  onFile?: (file: string, done: number, total: number) => void;
}

/**
 * How many problems, and how many warnings, of one file are named one by one; past it they are
 * counted, in one last entry of the file's. A 6 MB JSON Lines file of three million bad lines
 * made three million entries (700 MB of heap), and a larger one ran out of memory.
 */
const MAX_LISTED_PER_FILE = 100;

/** Of the file being read: its problems and warnings so far (see {@link note}). */
const tallies = new WeakMap<TraceFilesResult, { problems: number; warnings: number }>();

/**
 * Reads OTLP trace exports from files and directories (recursively, in name order).
 *
 * Formats, by extension after an optional `.gz` (gzip is also recognized by its magic bytes):
 * `.json` one `ExportTraceServiceRequest` or `ExportLogsServiceRequest` (or an array of them, the
 * two mixed; a file that turns out to be JSON Lines is read as such), `.jsonl`/`.ndjson` one
 * request per line (what the Collector's file exporter writes, traces and logs mixed),
 * `.pb`/`.binpb`/`.protobuf` one binary protobuf request: an `ExportLogsServiceRequest` when the
 * name says so (`run.logs.pb`), else an `ExportTraceServiceRequest`. Log requests keep their GenAI
 * events (as carriers of their trace, counted in `logRecords`); other records are skipped.
 * Directories contribute only files with these extensions. Symbolic links are followed, each file
 * and folder read once; what is not read (a link to nothing: a problem; a file or folder reached
 * again, a pipe or device in a folder: a warning) is named, see `listTraceFiles`.
 *
 * Nothing malformed stops the run: a bad file, line or span becomes an {@link InputProblem} that
 * names the file, the record and the field, and everything else is still returned. At most 100
 * problems and 100 warnings of one file are named one by one; the file's last entry counts the
 * rest (`and N more problems in this file, not listed one by one`). A file past
 * `maxDecompressedBytes` (as read, or decompressed) is a problem (`SS_TRACE_INPUT_TOO_LARGE`'s
 * message, naming the bound) having read at most one byte past it; a listing is bounded too
 * (`TRACE_FILE_LIMITS`: folders entered, entries read).
 */
export async function readTraceFiles(
  inputs: readonly string[],
  options: ReadTraceFilesOptions = {},
): Promise<TraceFilesResult> {
  const result: TraceFilesResult = {
    spans: [],
    problems: [],
    warnings: [],
    files: 0,
    requests: 0,
    logRecords: 0,
    bytes: 0,
  };
  const { maxDepth, maxEntries } = options;
  const listed = await listTraceFiles(inputs, { maxDepth, maxEntries });
  for (const entry of listed.unreadable) result.problems.push(entry);
  for (const entry of listed.skipped) result.warnings.push(entry);
  const files = listed.files;
  const max = options.maxDecompressedBytes ?? TRACE_FILE_LIMITS.maxFileBytes;
  for (const [i, file] of files.entries()) {
    const tally = { problems: 0, warnings: 0 };
    tallies.set(result, tally);
    try {
      const head = await readFileAtMost(file, max);
      result.bytes += head.data.length;
      if (!head.whole) throw tooLarge(file, `file exceeds ${max} bytes, the bound on a trace file`);
      readOne(file, head.data, max, options.limits ?? DEFAULT_DECODE_LIMITS, result);
    } catch (error) {
      note(result, 'problems', { file, message: messageOf(error, file) });
    }
    for (const kind of ['problems', 'warnings'] as const) {
      const unlisted = tally[kind] - MAX_LISTED_PER_FILE;
      if (unlisted > 0)
        result[kind].push({
          file,
          message: `and ${unlisted} more ${kind} in this file, not listed one by one`,
          unlisted,
        });
    }
    result.files++;
    options.onFile?.(file, i + 1, files.length);
  }
  return result;
}

function readOne(
  file: string,
  raw: Buffer,
  maxBytes: number,
  limits: Readonly<DecodeLimits>,
  result: TraceFilesResult,
): void {
  let data = raw;
  let name = file;
  if (raw.length >= 2 && raw[0] === 0x1f && raw[1] === 0x8b) {
    try {
      data = gunzipSync(raw, { maxOutputLength: maxBytes });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE')
        throw tooLarge(file, `gzip content exceeds ${maxBytes} bytes when decompressed`, error);
      throw new Error(`invalid gzip data: ${(error as Error).message}`, { cause: error });
    }
    name = file.replace(/\.gz$/, '');
  }
  const ext = extname(name);
  if (ext === '.pb' || ext === '.binpb' || ext === '.protobuf') {
    // Protobuf names no message type: a logs request is told by its name (`run.logs.pb`).
    const logs = /\.logs\.[a-z]+$/.test(name);
    addRequest(
      file,
      undefined,
      () => (logs ? decodeOtlpProtobufLogs(data, limits) : decodeOtlpProtobuf(data, limits)),
      result,
    );
    return;
  }
  const text = data.toString('utf8');
  if (ext === '.jsonl' || ext === '.ndjson') return readLines(file, text, limits, result);
  if (ext === '.json' || looksLikeJson(data)) {
    let parsed: unknown;
    try {
      checkJsonItems(data, { ...limits, maxItems: limits.maxItems * 4 });
    } catch (error) {
      note(result, 'problems', { file, message: (error as Error).message });
      return;
    }
    try {
      parsed = parseWellFormedJson(text);
    } catch (error) {
      // A .json file holding several JSON documents, one per line, is JSON Lines.
      if (text.trim().includes('\n') && isJsonLine(text.trimStart().split('\n', 1)[0]!))
        return readLines(file, text, limits, result);
      throw new Error(`invalid JSON: ${(error as Error).message}`, { cause: error });
    }
    if (Array.isArray(parsed))
      parsed.forEach((req: unknown, i) =>
        addJsonRequest(file, `request ${i + 1}`, req, limits, result),
      );
    else addJsonRequest(file, undefined, parsed, limits, result);
    return;
  }
  addRequest(file, undefined, () => decodeOtlpProtobuf(data, limits), result);
}

function readLines(
  file: string,
  text: string,
  limits: Readonly<DecodeLimits>,
  result: TraceFilesResult,
): void {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const record = `line ${i + 1}`;
    let parsed: unknown;
    try {
      checkJsonItems(line, limits);
      parsed = parseWellFormedJson(line);
    } catch (error) {
      note(result, 'problems', {
        file,
        record,
        message:
          error instanceof SyntaxError
            ? `invalid JSON: ${error.message}`
            : (error as Error).message,
      });
      return;
    }
    addJsonRequest(file, record, parsed, limits, result);
  });
}

function addJsonRequest(
  file: string,
  record: string | undefined,
  request: unknown,
  limits: Readonly<DecodeLimits>,
  result: TraceFilesResult,
): void {
  if (!isNotLogsExport(request)) {
    addRequest(file, record, () => decodeOtlpJsonLogs(request, limits), result);
    return;
  }
  if (isNotTraceExport(request)) {
    const keys = Object.keys(request);
    note(result, 'warnings', {
      file,
      ...(record && { record }),
      message: `not an OTLP trace or logs export: no resourceSpans or resourceLogs${keys.length ? ` (it has ${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ', …' : ''})` : ''}; read as zero spans`,
    });
  }
  addRequest(file, record, () => decodeOtlpJson(request, limits), result);
}

function addRequest(
  file: string,
  record: string | undefined,
  decode: () => DecodedRequest | DecodedLogs,
  result: TraceFilesResult,
): void {
  result.requests++;
  try {
    const decoded = decode();
    for (const span of decoded.spans) result.spans.push(span);
    if ('records' in decoded) result.logRecords += decoded.spans.length;
    for (const r of decoded.rejected)
      note(result, 'problems', {
        file,
        ...(record && { record }),
        path: r.path,
        message: r.reason,
      });
    const unreported = decoded.rejectedCount - decoded.rejected.length;
    if (unreported > 0)
      note(result, 'problems', {
        file,
        ...(record && { record }),
        message: `and ${unreported} more rejected ${'records' in decoded ? 'log record' : 'span'}(s), not listed one by one`,
      });
  } catch (error) {
    if (!isSpanscoreError(error) && !(error instanceof RangeError)) throw error;
    const path = isSpanscoreError(error) ? error.location?.path : undefined;
    const message =
      isSpanscoreError(error) && path ? error.message.slice(path.length + 2) : error.message;
    note(result, 'problems', { file, ...(record && { record }), ...(path && { path }), message });
  }
}

/** A file past the bound on one trace file (`maxDecompressedBytes`), named in its problem. */
function tooLarge(file: string, message: string, cause?: unknown): SpanscoreError {
  return new SpanscoreError('SS_TRACE_INPUT_TOO_LARGE', message, { location: { file }, cause });
}

/** An error's message for a problem of `file`, which names the file already. */
function messageOf(error: unknown, file: string): string {
  const message = (error as Error).message;
  return isSpanscoreError(error) && error.location?.file === file
    ? message.slice(file.length + 2)
    : message;
}

/**
 * Adds a problem or warning of the file being read, unless that file has had
 * {@link MAX_LISTED_PER_FILE} of them: then it is only counted.
 */
function note(result: TraceFilesResult, kind: 'problems' | 'warnings', entry: InputProblem): void {
  const tally = tallies.get(result)!;
  if (tally[kind]++ < MAX_LISTED_PER_FILE) result[kind].push(entry);
}

function looksLikeJson(data: Buffer): boolean {
  for (const byte of data.subarray(0, 64)) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b || byte === 0x5b; // { or [
  }
  return false;
}

function isJsonLine(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

import { keptRunResults } from '../results/merge-run-results.js';
import {
  MAX_RESULTS_PER_RUN,
  type ExportStatus,
  type RunRecord,
  type StoredResult,
} from '../results/stored-result.js';
import {
  decodeCompactRecord,
  isCompactRecord,
  type RecordFields,
} from '../results/compact-run-record.js';
import { EntryResults } from './result-lines.js';

// A run key's value (`<prefix>:run:{<traceId>}`): its export line, its record's JSON line, then
// one line per result (layout 1) or per pass's results in the stream (layout 2, see
// `ResultsPointer`); a value may hold both kinds (a pass of one layout appended to the other's).
// The export line is `E` alone (nothing exported for this pass), or
// `E<state>\t<attempts>\t<updated at ms>\t<last error as a JSON string>`. Values written before
// this layout start with the record's line, their export state in the hash `<run key>:export`
// (read by `exportStatusOf`). The Lua scripts in lua/ that rewrite a run key follow this layout.

/**
 * Layout 2's line for one pass's results, which are in the results stream only:
 * `@<entry id> <line> <codes>`: the stream entry, the line its first result is on, and a letter
 * per result (its count, and what the trace list counts without reading the stream): `p` pass,
 * `f` fail, `n` scored without a label, `s` skipped, `e` failed.
 */
export interface ResultsPointer {
  entryId: string;
  line: number;
  codes: string;
}

/** A run key's value, parsed: the record's fields and its result lines, oldest first. */
export interface ParsedRun {
  fields: RecordFields & { export: ExportStatus | null };
  lines: Array<{ result: Omit<StoredResult, 'id'> } | { pointer: ResultsPointer }>;
}

const POINTER = '@';

/** A pointer's line (see {@link ResultsPointer}). */
export function pointerLine(entryId: string, line: number, codes: string): string {
  return `${POINTER}${entryId} ${line} ${codes}`;
}

/** A result's letter in a pointer (see {@link ResultsPointer}). */
export function resultCode(r: Pick<StoredResult, 'status' | 'label'>): string {
  if (r.status === 'skipped') return 's';
  if (r.status === 'failed') return 'e';
  return r.label === 'pass' ? 'p' : r.label === 'fail' ? 'f' : 'n';
}

/** A letter as the status and label the trace list counts. */
export function codeResult(code: string): Pick<StoredResult, 'status' | 'label'> {
  if (code === 's') return { status: 'skipped', label: null };
  if (code === 'e') return { status: 'failed', label: null };
  return { status: 'scored', label: code === 'p' ? 'pass' : code === 'f' ? 'fail' : null };
}

function parsePointer(line: string): ResultsPointer | undefined {
  const m = /^@(\d+-\d+) (\d+) ([pfnse]*)$/.exec(line);
  return m ? { entryId: m[1]!, line: Number(m[2]), codes: m[3]! } : undefined;
}

/** A run's export line (see the layout above). */
export function exportLine(status: ExportStatus | undefined): string {
  if (!status) return 'E';
  return `E${status.state}\t${status.attempts}\t${status.updatedAtUnixMs}\t${JSON.stringify(status.lastError ?? '')}`;
}

/** An export line as a status; `null` for a pass with nothing to export. */
export function parseExportLine(line: string): ExportStatus | null {
  const m = /^E([^\t]+)\t(\d+)\t(\d+)\t(.*)$/.exec(line);
  if (!m) return null;
  const error = JSON.parse(m[4]!) as string;
  return {
    state: m[1] as ExportStatus['state'],
    attempts: Number(m[2]),
    lastError: error === '' ? null : error,
    updatedAtUnixMs: Number(m[3]),
  };
}

/** The export hash of the layout before as a status; `null` when the run has none. */
export function exportStatusOf(hash: Record<string, string>): ExportStatus | null {
  if (!hash.state) return null;
  return {
    state: hash.state as ExportStatus['state'],
    attempts: Number(hash.attempts ?? 0),
    lastError: hash.error || null,
    updatedAtUnixMs: Number(hash.at ?? 0),
  };
}

/**
 * A run key's value in either results layout, parsed: its export line, its record (layout 1's
 * JSON, or layout 2's compact one) and its lines of results and pointers. A pointer line that
 * does not parse is left out.
 */
export function parseRunValue(traceId: string, raw: string): ParsedRun {
  const [exportText, recordLine, ...rest] = raw.split('\n');
  const parsed = JSON.parse(recordLine!) as Record<string, unknown>;
  const fields = isCompactRecord(parsed)
    ? decodeCompactRecord(parsed, traceId)
    : (parsed as unknown as RecordFields);
  const lines: ParsedRun['lines'] = [];
  // Result lines as the stream's (a layout 2 pass replaced in its own batch keeps them here).
  const inline = new EntryResults(rest);
  rest.forEach((line, i) => {
    if (line.startsWith(POINTER)) {
      const pointer = parsePointer(line);
      if (pointer) lines.push({ pointer });
      return;
    }
    const result = inline.at(i);
    if (result) lines.push({ result });
  });
  return {
    fields: {
      ...fields,
      export: parseExportLine(exportText!),
      // Records written before tool calls were kept have neither field.
      toolCalls: fields.toolCalls ?? [],
      contentKept: fields.contentKept ?? true,
    },
    lines,
  };
}

/**
 * The newest {@link MAX_RESULTS_PER_RUN} results' lines of a run: the lines to read for them,
 * and how many of the first of them (a pointer's) are older than the cap.
 */
export function keptLines(lines: ParsedRun['lines']): { lines: ParsedRun['lines']; skip: number } {
  let count = 0;
  let i = lines.length;
  while (i > 0 && count < MAX_RESULTS_PER_RUN) {
    i--;
    const l = lines[i]!;
    count += 'result' in l ? 1 : l.pointer.codes.length;
  }
  // A pointer to no results locates nothing: left out, so that every line read holds one
  // result at least, and a record has a stream entry to read (an XRANGE) a result at most.
  const kept = lines.slice(i).filter(l => 'result' in l || l.pointer.codes.length > 0);
  return { lines: kept, skip: Math.max(0, count - MAX_RESULTS_PER_RUN) };
}

/**
 * A run key's value of layout 1 as its record (see {@link parseRunValue}); a layout 2 value's
 * results in the stream are left out here (`readRunResults` reads them), but for the trace list's
 * counts (`labelsOnly`: each as its status and label alone).
 */
export function parseRun(traceId: string, raw: string, labelsOnly = false): RunRecord {
  const { fields, lines } = parseRunValue(traceId, raw);
  const results: Array<Omit<StoredResult, 'id'>> = [];
  for (const l of lines)
    if ('result' in l) results.push(l.result);
    else if (labelsOnly)
      for (const code of l.pointer.codes)
        results.push(codeResult(code) as Omit<StoredResult, 'id'>);
  return {
    ...fields,
    results: keptRunResults(results).map((r, i): StoredResult => ({ id: `${traceId}:${i}`, ...r })),
  };
}

/** Whether a run key's value has an export line (the layout before has none). */
export function hasExportLine(raw: string): boolean {
  return raw.startsWith('E');
}

/**
 * A run key's value in either layout: without an export line (the layout before), its export is
 * `null` here; its state is in the export hash (see {@link exportStatusOf}).
 */
export function parseAnyRun(traceId: string, raw: string): RunRecord {
  return parseRun(traceId, hasExportLine(raw) ? raw : `E\n${raw}`);
}

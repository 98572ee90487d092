import { keptRunResults } from '../results/merge-run-results.js';
import { type ExportStatus, type RunRecord, type StoredResult } from '../results/stored-result.js';

// A run key's value (`<prefix>:run:{<traceId>}`): its export line, its record's JSON line, then one
// JSON line per result. The export line is `E` alone (nothing exported for this pass), or
// `E<state>\t<attempts>\t<updated at ms>\t<last error as a JSON string>`. Values written before
// this layout start with the record's line, their export state in the hash `<run key>:export`
// (read by `exportStatusOf`). The Lua scripts in lua/ that rewrite a run key follow this layout.

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

/** A run key's value: the export line, the record's JSON line, then one line per result. */
export function parseRun(traceId: string, raw: string): RunRecord {
  const [exportText, record, ...results] = raw.split('\n');
  const fields = JSON.parse(record!) as Omit<RunRecord, 'results'>;
  return {
    ...fields,
    export: parseExportLine(exportText!),
    // Records written before tool calls were kept have neither field.
    toolCalls: fields.toolCalls ?? [],
    contentKept: fields.contentKept ?? true,
    results: keptRunResults(results).map((r, i): StoredResult => ({
      id: `${traceId}:${i}`,
      ...(JSON.parse(r) as Omit<StoredResult, 'id'>),
    })),
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

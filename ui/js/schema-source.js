// Where the JSON Schema of a tool's calls came from, as the Tools view and the trace view say it:
// the trace's own, learned from another trace of the service (another sender's input), or given
// in config (toolHealth.schemas).

/**
 * `schema seen in trace 4bf92f35…, 3 min ago`, `schema given in config (file)`; empty for the
 * trace's own.
 */
export function schemaSourceText(source) {
  if (!source || source.kind === 'trace') return '';
  if (source.kind === 'config') return `schema given in config (${source.file})`;
  return `schema seen in trace ${String(source.traceId).slice(0, 8)}…, ${ago(source.seenAtUnixMs)}`;
}

/** A tool row's checked calls by source (`2 against a learned schema`), or empty for none. */
export function checkedBySchemaText(row) {
  const by = row.checkedBySchema;
  if (!by) return '';
  const parts = [];
  if (by.learned) parts.push(`${by.learned} against a learned schema`);
  if (by.config) parts.push(`${by.config} against a given schema`);
  return parts.join(', ');
}

function ago(atUnixMs) {
  const s = Math.max(0, Math.round((Date.now() - atUnixMs) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}

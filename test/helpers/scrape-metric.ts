/**
 * The value of one series at a Prometheus endpoint (`name{label="value",…}`, the labels given
 * matching exactly those of the series), or `undefined` when it has none (yet): for tests that
 * read or wait for what the service counted instead of sleeping.
 */
export async function scrapeMetric(
  metricsUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const text = await (await fetch(metricsUrl)).text();
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean).sort().join(',');
    if (have === wanted) return Number(m[3]);
  }
  return undefined;
}

/**
 * The value of one series at a Prometheus endpoint (`name{label="value",…}`, the labels given
 * matching exactly those of the series), or 0 when it has none yet: for tests that wait for what
 * the service counted instead of sleeping.
 */
export async function scrapeMetric(
  metricsUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',');
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{([^}]*)\})? (\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',').filter(Boolean).sort().join(',');
    if (have === wanted) sum += Number(m[3]);
  }
  return sum;
}

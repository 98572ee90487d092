import { Registry, type Metric, type RegistryContentType } from 'prom-client';

/** A `/metrics` answer: its body and the `content-type` that names its format. */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

/**
 * The metrics of `registry` in the format the scraper's `accept` header asks: OpenMetrics 1.0 (`application/openmetrics-text`, with exemplars) only when
 * it names that type with a quality above 0, as Prometheus does by default; else the Prometheus
 * text format 0.0.4 (`text/plain; version=0.0.4`), prom-client's `Registry.PROMETHEUS_CONTENT_TYPE`,
 * which older Prometheus servers, other scrapers and `promtool check metrics` read (a client
 * asking `text/plain`, `* /*` or nothing gets this; so does every client of a registry not made
 * for OpenMetrics, which prom-client writes in the text format only). The same series either way: a counter's
 * samples end in `_total` in both (as Prometheus stores an OpenMetrics counter), the text format
 * naming its family so too; exemplars are OpenMetrics only. The header is read once, in one pass
 * (Node bounds a request's headers at 16 KiB).
 */
export async function metricsExposition(
  registry: Registry<RegistryContentType>,
  accept: string | undefined,
): Promise<MetricsExposition> {
  if (registry.contentType === Registry.OPENMETRICS_CONTENT_TYPE && asksOpenMetrics(accept))
    return { contentType: registry.contentType, body: await registry.metrics() };
  // prom-client writes a registry's metrics in the registry's one format: a registry in the
  // text format (prom-client's default) writes views of the same metric objects.
  const text = new Registry();
  // (prom-client's types call them plain objects: they are the metrics registered)
  const metrics = registry.getMetricsAsArray() as unknown as Metric[];
  for (const metric of metrics) text.registerMetric(counterTotal(metric));
  return { contentType: text.contentType, body: await text.metrics() };
}

const OPENMETRICS = 'application/openmetrics-text';

/** Whether an `accept` header names OpenMetrics with a quality above 0. */
function asksOpenMetrics(accept: string | undefined): boolean {
  if (!accept) return false;
  for (const range of accept.split(',')) {
    const params = range.split(';');
    if (params[0]!.trim().toLowerCase() !== OPENMETRICS) continue;
    let q = 1;
    for (let i = 1; i < params.length; i++) {
      const [name, value] = params[i]!.split('=');
      if (name!.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (q > 0) return true;
  }
  return false;
}

/** What a registry reads of a metric to write it. */
type MetricData = Awaited<ReturnType<Metric['get']>>;

/**
 * A view of `metric` as the text format writes it, a counter's name ending in `_total`: prom-client's
 * OpenMetrics writing strips the suffix from the metric object itself (and adds it back to each
 * sample), so after one OpenMetrics scrape a counter named `x_total` is named `x`, and the text
 * format writes the name as it is. A histogram's samples are read as prom-client reads them for
 * writing (`getForPromString`).
 */
function counterTotal(metric: Metric): Metric {
  const read = metric as Metric & { getForPromString?: () => Promise<MetricData> };
  const get = async (): Promise<MetricData> => {
    const data = read.getForPromString ? await read.getForPromString() : await read.get();
    // (a string at run time: prom-client's types call it an enum)
    if ((data.type as unknown) !== 'counter' || data.name.endsWith('_total')) return data;
    return { ...data, name: `${data.name}_total` };
  };
  // The name it is registered under: any, as long as each is its own.
  return { name: (metric as unknown as { name: string }).name, get } as unknown as Metric;
}

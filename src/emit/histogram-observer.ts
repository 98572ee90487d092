import type { Histogram } from 'prom-client';
import { NestedCache } from '../results/nested-cache.js';

/**
 * What prom-client 15's `Histogram` keeps of a series (`hashMap[hash]`, as its `observe` builds
 * it): read and updated here in place, never replaced.
 */
interface SeriesValues {
  labels: Record<string, string>;
  bucketValues: Record<string, number>;
  bucketExemplars?: Record<string, { labelSet: unknown; value: number; timestamp: number } | null>;
  sum: number;
  count: number;
}

/** The fields of prom-client 15's `Histogram` this reads (undeclared in its types). */
interface HistogramInternals {
  hashMap: Record<string, SeriesValues | undefined>;
  upperBounds: readonly number[];
  sortedLabelNames: readonly string[];
  enableExemplars: boolean;
}

/** One series: its labels object, its key in `hashMap`, and its values once found there. */
interface Series {
  labels: Record<string, string>;
  key: string;
  /** The `hashMap` the values were found in (prom-client's `reset()` replaces it). */
  map: HistogramInternals['hashMap'] | undefined;
  values: SeriesValues | undefined;
}

/** Observes `value` in the series of `labelValues` (given in `labelNames`' order). */
export type ObserveHistogram = (
  labelValues: readonly string[],
  value: number,
  exemplarLabels?: Record<string, string>,
) => void;

/** prom-client refuses an exemplar label set longer than this (names and values joined). */
const MAX_EXEMPLAR_CHARS = 128;

/**
 * An `observe` for a prom-client `Histogram` that, once a series exists, updates its values in
 * place as `Histogram#observe` would (sum, count, the first bucket whose bound is at least the
 * value; with `exemplarLabels`, that bucket's exemplar: labels, value and `Date.now() / 1000`).
 * What `/metrics` prints is the same as with `observe`. Why: `observe` with an exemplar allocated
 * about 1,100 heap bytes a call (a closure, label hashes built twice as strings, the exemplar's
 * label set joined to check its length), 110 bytes a scored span of the allocation budget
 * (issue 60); this allocates nothing but the exemplar's timestamp.
 *
 * Contract and limits:
 * - Anything unusual goes through the histogram's own `observe`, which then does (and throws)
 *   what it always did: a series or a bucket exemplar seen for the first time (prom-client makes
 *   them), a value that is not finite, an exemplar label that is not a string or a label set over
 *   prom-client's 128 characters, a series `reset()` or `remove()` let go (checked each call: the
 *   values must still be in the histogram's current map under the series' key).
 * - It reads prom-client 15's internals (`hashMap`, `upperBounds`, `sortedLabelNames`); should
 *   they not be there, every call goes through `observe`.
 * - Label values are cached in a {@link NestedCache} (at most 10,000 series, then it starts
 *   again): the caller bounds their cardinality, as it must for the histogram anyway.
 *   `labelValues` is read, not kept.
 */
export function histogramObserver<L extends string>(
  histogram: Histogram<L>,
  labelNames: readonly L[],
): ObserveHistogram {
  const h = histogram as unknown as HistogramInternals;
  const known =
    typeof h.hashMap === 'object' &&
    Array.isArray(h.upperBounds) &&
    Array.isArray(h.sortedLabelNames);
  const bounds = known ? h.upperBounds : [];
  // Bucket keys as prom-client's objects hold them (a number as a property key is its string):
  // made once, so no number becomes a string per call.
  const boundKeys = bounds.map(String);
  const series = new NestedCache<Series>();
  const newSeries = (values: readonly string[]): Series => {
    const labels: Record<string, string> = {};
    labelNames.forEach((name, i) => (labels[name] = values[i]!));
    // prom-client's key of a label set: `name:value,` for each label, by sorted label name.
    let key = '';
    for (const name of known ? h.sortedLabelNames : [])
      if (labels[name] !== undefined) key += `${name}:${labels[name]},`;
    return { labels, key, map: undefined, values: undefined };
  };
  // As the callers observed before: the object form with exemplar labels, else labels and value.
  const slow = (s: Series, value: number, exemplarLabels?: Record<string, string>): void => {
    if (exemplarLabels)
      // prom-client types exemplar labels as the metric's own label names; any are allowed.
      histogram.observe({
        labels: s.labels as never,
        value,
        exemplarLabels: exemplarLabels as never,
      });
    else histogram.observe(s.labels as never, value);
    if (!known) return;
    const values = h.hashMap[s.key];
    const ok =
      values !== undefined &&
      typeof values.sum === 'number' &&
      typeof values.count === 'number' &&
      typeof values.bucketValues === 'object';
    s.map = ok ? h.hashMap : undefined;
    s.values = ok ? values : undefined;
  };
  // A histogram without labels has one series: cached under one key.
  const NO_VALUES: readonly string[] = [''];
  return (labelValues, value, exemplarLabels) => {
    const s = series.get(labelValues.length ? labelValues : NO_VALUES, newSeries);
    const values = s.values;
    const map = s.map;
    if (
      values === undefined ||
      map === undefined ||
      h.hashMap !== map ||
      map[s.key] !== values ||
      !Number.isFinite(value) ||
      (exemplarLabels !== undefined && !h.enableExemplars)
    )
      return slow(s, value, exemplarLabels);
    let bucket = -1;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        bucket = i;
        break;
      }
    if (exemplarLabels !== undefined) {
      let chars = 0;
      let empty = true;
      for (const name in exemplarLabels) {
        const label = exemplarLabels[name];
        if (typeof label !== 'string') return slow(s, value, exemplarLabels);
        chars += name.length + label.length;
        empty = false;
      }
      if (!empty) {
        const exemplar = values.bucketExemplars?.[bucket === -1 ? '-1' : boundKeys[bucket]!];
        if (typeof exemplar !== 'object' || exemplar === null || chars > MAX_EXEMPLAR_CHARS)
          return slow(s, value, exemplarLabels);
        record(values, bucket, boundKeys, value);
        exemplar.labelSet = exemplarLabels;
        exemplar.value = value;
        exemplar.timestamp = Date.now() / 1000;
        return;
      }
    }
    record(values, bucket, boundKeys, value);
  };
}

/** The observation itself, as `Histogram#observe` makes it (no bucket past the last bound). */
function record(
  values: SeriesValues,
  bucket: number,
  boundKeys: readonly string[],
  value: number,
): void {
  values.sum += value;
  values.count += 1;
  if (bucket !== -1) values.bucketValues[boundKeys[bucket]!]! += 1;
}

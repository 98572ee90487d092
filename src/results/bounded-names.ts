import { flatCopy } from '../ingest/flat-copy.js';

/**
 * Names kept apart, at most `max` per group in this process (the first seen, which for tools and
 * services are the busiest: they are called first and most); past that, a name is `other`. Keeps
 * the cardinality of metric labels and per-minute counters bounded whatever the traces say.
 *
 * A name is kept as its own copy ({@link flatCopy}), and that copy is what is returned, every
 * time: callers key their counters, caches and labels by the returned name, so none of them holds
 * the trace the name was cut from (a name trimmed from a sender's attribute is a view of all of
 * it). A group is kept as given: pass `''` or a name a `boundedNames` returned.
 *
 * The last `(group, name)` kept is answered again without a lookup when the same pair is asked
 * next (a trace's calls ask for one service, version and agent call after call): exact, since a
 * kept name stays kept. It holds the kept copy, never the caller's string; a name past `max` is
 * looked up each time.
 */
export function boundedNames(max: number): (group: string, name: string) => string {
  const seen = new Map<string, Map<string, string>>();
  // The last pair kept (`undefined` group: none yet); `lastName` is the kept copy.
  let lastGroup: string | undefined;
  let lastName = '';
  return (group, name) => {
    if (name === lastName && group === lastGroup) return lastName;
    let names = seen.get(group);
    if (!names) seen.set(group, (names = new Map<string, string>()));
    let kept = names.get(name);
    if (kept === undefined) {
      if (names.size >= max) return OTHER;
      kept = flatCopy(name);
      names.set(kept, kept);
    }
    lastGroup = group;
    lastName = kept;
    return kept;
  };
}

/** The name that stands for every name past a bound. */
export const OTHER = 'other';

import { flatCopy } from '../normalize/flat-copy.js';

/**
 * Names kept apart, at most `max` per group in this process (the first seen, which for tools and
 * services are the busiest: they are called first and most); past that, a name is `other`. Keeps
 * the cardinality of metric labels and per-minute counters bounded whatever the traces say.
 *
 * A name is kept as its own copy ({@link flatCopy}), and that copy is what is returned, every
 * time: callers key their counters, caches and labels by the returned name, so none of them holds
 * the trace the name was cut from (a name trimmed from a sender's attribute is a view of all of
 * it). A group is kept as given: pass `''` or a name a `boundedNames` returned.
 */
export function boundedNames(max: number): (group: string, name: string) => string {
  const seen = new Map<string, Map<string, string>>();
  return (group, name) => {
    let names = seen.get(group);
    if (!names) seen.set(group, (names = new Map<string, string>()));
    const kept = names.get(name);
    if (kept !== undefined) return kept;
    if (names.size >= max) return OTHER;
    const own = flatCopy(name);
    names.set(own, own);
    return own;
  };
}

/** The name that stands for every name past a bound. */
export const OTHER = 'other';

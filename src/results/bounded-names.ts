/**
 * Names kept apart, at most `max` per group in this process (the first seen, which for tools and
 * services are the busiest: they are called first and most); past that, a name is `other`. Keeps
 * the cardinality of metric labels and per-minute counters bounded whatever the traces say.
 */
export function boundedNames(max: number): (group: string, name: string) => string {
  const seen = new Map<string, Set<string>>();
  return (group, name) => {
    let names = seen.get(group);
    if (!names) seen.set(group, (names = new Set()));
    if (names.has(name)) return name;
    if (names.size >= max) return OTHER;
    names.add(name);
    return name;
  };
}

/** The name that stands for every name past a bound. */
export const OTHER = 'other';

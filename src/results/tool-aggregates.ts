import type { ToolCallFact } from '../score/tool-call-facts.js';
import { boundedNames } from './bounded-names.js';
import { NestedCache } from './nested-cache.js';
import type { AddIncrement } from './minute-aggregates.js';

/**
 * Per-tool counters behind `GET /api/v1/tools`, kept beside the result counters in the same
 * per-minute maps (see `minute-aggregates.ts`): `t␟<group>␟<metric>`, the group being
 * `[service, version, agent, tool]` (JSON) and the metrics `n` calls, `err` failed, `ref` refused,
 * `chk` arguments checked (`chl` of them against a schema learned from other traces, `chc` against
 * one given in config), `inv` invalid arguments, `unk` tools never offered, `rep` calls of a
 * loop, and `d<i>` calls whose tool span ran up to {@link DURATION_BUCKETS_MS}`[i]` (the last
 * bucket unbounded), for the duration percentiles.
 */
const SEP = '\u001f';

/** Upper bounds of the duration buckets, in milliseconds; one more bucket holds the rest. */
export const DURATION_BUCKETS_MS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000,
] as const;

/** How many names a process keeps apart per service before `other`. */
export interface ToolNameBounds {
  maxServices: number;
  maxToolsPerService: number;
}

/**
 * A function that turns a run's tool-call facts into counter increments, each passed to `add`,
 * with names bounded per process ({@link boundedNames}): services, then per service its tools,
 * versions and agents.
 */
export function toolIncrementer(
  bounds: ToolNameBounds,
): (facts: readonly ToolCallFact[], add: AddIncrement) => void {
  const services = boundedNames(bounds.maxServices);
  const tools = boundedNames(bounds.maxToolsPerService);
  const versions = boundedNames(bounds.maxToolsPerService);
  const agents = boundedNames(bounds.maxToolsPerService);
  // The field names of each group, made once: the names are bounded, so this is too. Per
  // `[service, version, agent]`, a map of its tools' (at most `maxToolsPerService` + `other`);
  // past MAX_GROUPS groups made, all are let go and made again (as the cache's own bound did).
  let groups = new NestedCache<Map<string, ToolFields>>();
  let made = 0;
  // The lookup key, refilled per prefix (the cache reads it, never keeps it).
  const key: string[] = ['', '', ''];
  return (facts, add) => {
    // A trace's calls share their service and version, and mostly their agent: the tools of the
    // last prefix are held, each call one lookup by tool rather than a walk of four maps.
    let byTool: Map<string, ToolFields> | undefined;
    for (const fact of facts) {
      const service = services('', fact.service);
      const version = versions(service, fact.version);
      const agent = agents(service, fact.agent);
      const tool = tools(service, fact.tool);
      if (byTool === undefined || service !== key[0] || version !== key[1] || agent !== key[2]) {
        key[0] = service;
        key[1] = version;
        key[2] = agent;
        byTool = groups.get(key, newToolMap);
      }
      let f = byTool.get(tool);
      if (!f) {
        if (made >= MAX_GROUPS) {
          groups = new NestedCache();
          made = 0;
          byTool = groups.get(key, newToolMap);
        }
        byTool.set(tool, (f = toolFields(JSON.stringify([service, version, agent, tool]))));
        made++;
      }
      add(f.n, 1);
      if (fact.outcome === 'error') add(f.err, 1);
      else if (fact.outcome === 'refused') add(f.ref, 1);
      if (fact.checked) add(f.chk, 1);
      if (fact.checked && fact.schemaSource === 'learned') add(f.chl, 1);
      else if (fact.checked && fact.schemaSource === 'config') add(f.chc, 1);
      if (fact.invalid) add(f.inv, 1);
      if (fact.unknown) add(f.unk, 1);
      if (fact.repeated) add(f.rep, 1);
      if (fact.durationMs !== undefined) add(f.d[durationBucket(fact.durationMs)]!, 1);
    }
  };
}

/** Groups whose field names are held at most (a `NestedCache`'s default bound). */
const MAX_GROUPS = 10_000;

/** A prefix's tools, filled as they are seen. */
const newToolMap = (): Map<string, ToolFields> => new Map();

/** The fields of a group `[service, version, agent, tool]`. */
interface ToolFields {
  n: string;
  err: string;
  ref: string;
  chk: string;
  chl: string;
  chc: string;
  inv: string;
  unk: string;
  rep: string;
  /** `d<i>` per duration bucket. */
  d: string[];
}

function toolFields(group: string): ToolFields {
  const f = (metric: string): string => `t${SEP}${group}${SEP}${metric}`;
  return {
    n: f('n'),
    err: f('err'),
    ref: f('ref'),
    chk: f('chk'),
    chl: f('chl'),
    chc: f('chc'),
    inv: f('inv'),
    unk: f('unk'),
    rep: f('rep'),
    d: Array.from({ length: DURATION_BUCKETS_MS.length + 1 }, (_, i) => f(`d${i}`)),
  };
}

function durationBucket(ms: number): number {
  for (let i = 0; i < DURATION_BUCKETS_MS.length; i++) if (ms <= DURATION_BUCKETS_MS[i]!) return i;
  return DURATION_BUCKETS_MS.length;
}

/** What `GET /api/v1/tools` may be narrowed to. */
export interface ToolsFilter {
  service?: string;
  /** The evaluated traces' `service.version`. */
  version?: string;
  agent?: string;
}

/** One tool of one service over a window. */
export interface ToolRow {
  service: string;
  tool: string;
  calls: number;
  /** Calls that ran and failed. */
  errors: number;
  /** Calls the framework did not run (invalid input, no such tool). */
  refused: number;
  /** Calls whose arguments were checked against the schema offered. */
  checked: number;
  /**
   * The checked calls by where their schema came from: offered in their own trace, learned from
   * the service's other traces (the trace records none), or given in `toolHealth.schemas`.
   * Always set by {@link summarizeTools}.
   */
  checkedBySchema?: { trace: number; learned: number; config: number };
  invalidArguments: number;
  /** Calls of a tool the model was not offered. */
  unknown: number;
  /** Calls that were part of a loop (identical calls). */
  repeated: number;
  /** errors / calls; `null` with no call. The same for refused, unknown and repeated. */
  errorRate: number | null;
  refusedRate: number | null;
  /** invalidArguments / checked; `null` when none was checked. */
  invalidRate: number | null;
  unknownRate: number | null;
  repeatedRate: number | null;
  /** Median and 95th percentile of the tool spans' durations, ms; `null` without durations. */
  p50Ms: number | null;
  p95Ms: number | null;
  /** The versions and agents seen calling it. */
  versions: string[];
  agents: string[];
}

/** `GET /api/v1/tools`: per service and tool, and per minute for the trend. */
export interface ToolsSummary {
  fromUnixMs: number;
  toUnixMs: number;
  /** Busiest first. */
  tools: ToolRow[];
  /** Per minute, service and tool, oldest first. */
  timeline: Array<{
    minuteUnixMs: number;
    service: string;
    tool: string;
    calls: number;
    errors: number;
    refused: number;
    invalidArguments: number;
  }>;
}

interface ToolCounts {
  n: number;
  err: number;
  ref: number;
  chk: number;
  chl: number;
  chc: number;
  inv: number;
  unk: number;
  rep: number;
  durations: number[];
  versions: Set<string>;
  agents: Set<string>;
}

/**
 * Builds `GET /api/v1/tools` from the minutes of a window (the result fields in them are skipped).
 * Pure.
 */
export function summarizeTools(
  minutes: ReadonlyArray<{ minuteUnixMs: number; fields: ReadonlyMap<string, number> }>,
  fromUnixMs: number,
  toUnixMs: number,
  filter: ToolsFilter = {},
): ToolsSummary {
  const byTool = new Map<string, ToolCounts>();
  const timeline = new Map<string, ToolsSummary['timeline'][number]>();
  for (const { minuteUnixMs, fields } of [...minutes].sort(
    (a, b) => a.minuteUnixMs - b.minuteUnixMs,
  )) {
    for (const [field, value] of fields) {
      if (field.charCodeAt(0) !== 116 /* t */ || field.charCodeAt(1) !== 0x1f) continue;
      const parts = field.split(SEP);
      if (parts.length !== 3) continue;
      const [service, version, agent, tool] = JSON.parse(parts[1]!) as string[];
      if (filter.service !== undefined && service !== filter.service) continue;
      if (filter.version !== undefined && version !== filter.version) continue;
      if (filter.agent !== undefined && agent !== filter.agent) continue;
      const key = JSON.stringify([service, tool]);
      let c = byTool.get(key);
      if (!c)
        byTool.set(
          key,
          (c = {
            n: 0,
            err: 0,
            ref: 0,
            chk: 0,
            chl: 0,
            chc: 0,
            inv: 0,
            unk: 0,
            rep: 0,
            durations: new Array<number>(DURATION_BUCKETS_MS.length + 1).fill(0),
            versions: new Set(),
            agents: new Set(),
          }),
        );
      const metric = parts[2]!;
      if (metric.startsWith('d')) {
        const bucket = Number(metric.slice(1));
        if (bucket >= 0 && bucket < c.durations.length) c.durations[bucket]! += value;
        continue;
      }
      if (!(metric in c) || metric === 'durations' || metric === 'versions' || metric === 'agents')
        continue;
      (c as unknown as Record<string, number>)[metric]! += value;
      if (metric === 'n') {
        if (version) c.versions.add(version);
        if (agent) c.agents.add(agent);
      }
      if (metric === 'n' || metric === 'err' || metric === 'ref' || metric === 'inv') {
        const tkey = `${minuteUnixMs}${SEP}${key}`;
        let point = timeline.get(tkey);
        if (!point)
          timeline.set(
            tkey,
            (point = {
              minuteUnixMs,
              service: service!,
              tool: tool!,
              calls: 0,
              errors: 0,
              refused: 0,
              invalidArguments: 0,
            }),
          );
        if (metric === 'n') point.calls += value;
        else if (metric === 'err') point.errors += value;
        else if (metric === 'ref') point.refused += value;
        else point.invalidArguments += value;
      }
    }
  }
  const rate = (part: number, whole: number): number | null => (whole ? part / whole : null);
  const tools = [...byTool].map(([key, c]): ToolRow => {
    const [service, tool] = JSON.parse(key) as [string, string];
    return {
      service,
      tool,
      calls: c.n,
      errors: c.err,
      refused: c.ref,
      checked: c.chk,
      checkedBySchema: { trace: c.chk - c.chl - c.chc, learned: c.chl, config: c.chc },
      invalidArguments: c.inv,
      unknown: c.unk,
      repeated: c.rep,
      errorRate: rate(c.err, c.n),
      refusedRate: rate(c.ref, c.n),
      invalidRate: rate(c.inv, c.chk),
      unknownRate: rate(c.unk, c.n),
      repeatedRate: rate(c.rep, c.n),
      p50Ms: quantile(c.durations, 0.5),
      p95Ms: quantile(c.durations, 0.95),
      versions: [...c.versions].sort(),
      agents: [...c.agents].sort(),
    };
  });
  tools.sort(
    (a, b) =>
      b.calls - a.calls || a.service.localeCompare(b.service) || a.tool.localeCompare(b.tool),
  );
  return { fromUnixMs, toUnixMs, tools, timeline: [...timeline.values()] };
}

/**
 * The `q` quantile of bucketed durations, interpolated linearly within its bucket (as Prometheus'
 * `histogram_quantile`); in the unbounded last bucket, its lower bound. `null` with no duration.
 */
export function quantile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    const count = buckets[i]!;
    if (count > 0 && seen + count >= rank) {
      const lower = i === 0 ? 0 : DURATION_BUCKETS_MS[i - 1]!;
      const upper = DURATION_BUCKETS_MS[i];
      if (upper === undefined) return lower;
      return Math.round((lower + ((upper - lower) * (rank - seen)) / count) * 100) / 100;
    }
    seen += count;
  }
  return DURATION_BUCKETS_MS.at(-1)!;
}

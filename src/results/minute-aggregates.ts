import type { StoredResult } from './stored-result.js';
import { boundedNames } from './bounded-names.js';
import { NestedCache } from './nested-cache.js';
import type { Summary, SummaryFilter, SummaryGroup } from './results-query.js';

/**
 * Per-minute counters behind `GET /api/v1/summary`, the same in both stores: a minute is a flat
 * map of field → number (a `Map` in memory; in Redis, each writing process's map as one JSON field
 * of the minute's hash, summed when read), so writes are plain increments and a summary reads
 * only the minutes of its window, however many results they hold.
 *
 * Fields: `r␟<group>␟<metric>` per result group (scorer, target, service) with metrics `n`,
 * `pass`, `fail`, `skip`, `err`, `sum` (scores) and `cost` (judge USD); `a␟<group>␟<metric>` per
 * agent of a result's route (scorer, test case, service, agent) with the same metrics and
 * `blame`, the failures that agent is blamed for; `ns␟<reason>` per trace not scored; `failed`
 * per trace failed after retries. Minutes written before agents were read have no `a` fields.
 */
export const MINUTE_MS = 60_000;

/** What separates a field's parts (the kind, its group, its metric; `ns`, its reason). */
export const FIELD_SEP = '\u001f';

/** The minute a time falls in, as the Unix milliseconds of its start. */
export function minuteOf(timeUnixMs: number): number {
  return timeUnixMs - (timeUnixMs % MINUTE_MS);
}

/** Where increments go: a field of a minute's counters, and what to add to it. */
export type AddIncrement = (field: string, by: number) => void;

/** How many names a process keeps apart in the result counters before `other`. */
export interface ResultNameBounds {
  /** Evaluated services (`metrics.maxServices`). */
  maxServices: number;
  /** Agents per service (`toolHealth.maxToolsPerService`, as the tool counters bound them). */
  maxToolsPerService: number;
}

/** What {@link resultIncrementer} makes: a result's increments, each passed to `add`. */
export type ResultIncrements = (r: Omit<StoredResult, 'id'>, add: AddIncrement) => void;

/**
 * A function that turns a result into the increments it adds to its minute, each passed to `add`
 * (no array and no tuple per increment: this runs for every result written). The service and
 * agent names come from traces, so they are bounded per process as the tool counters bound theirs
 * (`boundedNames`: the first seen keep their names, the rest count as `other`): services past
 * `maxServices`, and per service agents past `maxToolsPerService`. Unbounded, each distinct
 * service added eight fields to its minute and each agent eight more: 400 traces of their own
 * service and agent made one minute's hash 9.8 MB (3,174 fields), rewritten with every flush, and
 * a summary of 400 services. A store takes back a replaced pass's counts with its own
 * incrementer, so that they land where they were counted.
 */
export function resultIncrementer(bounds: ResultNameBounds): ResultIncrements {
  const services = boundedNames(bounds.maxServices);
  const agents = boundedNames(bounds.maxToolsPerService);
  return (r, add) => {
    const service = services('', r.serviceName);
    const key = resultKey;
    key[0] = r.scorer;
    key[1] = r.targetKind;
    key[2] = r.suite;
    key[3] = r.testCaseId;
    key[4] = service;
    const f = resultGroups.get(key, resultGroupFields);
    add(f.n, 1);
    if (r.status === 'scored') {
      add(r.label === 'pass' ? f.pass : f.fail, 1);
      add(f.sum, r.score ?? 0);
    } else add(r.status === 'skipped' ? f.skip : f.err, 1);
    if (r.judgeCostUsd) add(f.cost, r.judgeCostUsd);
    if (!r.agents) return;
    for (const agent of r.agents) {
      const k = agentKey;
      k[0] = r.scorer;
      k[1] = r.testCaseId;
      k[2] = service;
      k[3] = agents(service, agent);
      const a = agentGroups.get(k, agentGroupFields);
      add(a.n, 1);
      if (r.status === 'scored') {
        add(r.label === 'pass' ? a.pass : a.fail, 1);
        add(a.sum, r.score ?? 0);
      } else add(r.status === 'skipped' ? a.skip : a.err, 1);
      if (r.failingAgents?.includes(agent)) add(a.blame, 1);
    }
  };
}

/**
 * The field names of each group, made once and shared by every store of the process (they follow
 * from the group alone; which names a store keeps apart is its incrementer's); the lookup keys are
 * refilled for each result (the caches read them, never keep them).
 */
const resultGroups = new NestedCache<GroupFields>();
const agentGroups = new NestedCache<GroupFields>();
const resultKey: string[] = ['', '', '', '', ''];
const agentKey: string[] = ['', '', '', ''];
const resultGroupFields = (group: readonly string[]): GroupFields => groupFields('r', group);
const agentGroupFields = (group: readonly string[]): GroupFields => groupFields('a', group);

/** The field names of one result group (`r`) or agent group (`a`), made once per group. */
interface GroupFields {
  n: string;
  pass: string;
  fail: string;
  skip: string;
  err: string;
  sum: string;
  cost: string;
  blame: string;
}

function groupFields(kind: 'r' | 'a', group: readonly string[]): GroupFields {
  const g = JSON.stringify(group);
  const f = (metric: string): string => `${kind}${FIELD_SEP}${g}${FIELD_SEP}${metric}`;
  return {
    n: f('n'),
    pass: f('pass'),
    fail: f('fail'),
    skip: f('skip'),
    err: f('err'),
    sum: f('sum'),
    cost: f('cost'),
    blame: f('blame'),
  };
}

/** The field counting traces that failed after retries. */
export const FAILED_FIELD = 'failed';

/** The field counting sessions scored as one (a session test case's pass). */
export const SESSIONS_FIELD = 'sessions';

/**
 * Builds the summary of `[fromUnixMs, toUnixMs]` from the minutes in it; `filter` keeps the
 * results of one scorer, test case or service (trace and session counts are never filtered).
 */
export function summarizeMinutes(
  minutes: ReadonlyArray<{ minuteUnixMs: number; fields: ReadonlyMap<string, number> }>,
  fromUnixMs: number,
  toUnixMs: number,
  filter: SummaryFilter = {},
): Summary {
  const total = emptyGroup();
  const byScorer = new Map<string, Counts>();
  const byTarget = new Map<string, Counts>();
  const byService = new Map<string, Counts>();
  const byAgent = new Map<string, Counts>();
  const timeline = new Map<
    string,
    { minuteUnixMs: number; scorer: string; pass: number; fail: number }
  >();
  const notScored = new Map<string, number>();
  const options = {
    scorers: new Set<string>(),
    testCases: new Set<string>(),
    services: new Set<string>(),
    agents: new Set<string>(),
  };
  let failedTraces = 0;
  let sessions = 0;
  for (const { minuteUnixMs, fields } of [...minutes].sort(
    (a, b) => a.minuteUnixMs - b.minuteUnixMs,
  )) {
    for (const [field, value] of fields) {
      if (field === FAILED_FIELD) {
        failedTraces += value;
        continue;
      }
      if (field === SESSIONS_FIELD) {
        sessions += value;
        continue;
      }
      const parts = field.split(FIELD_SEP);
      if (parts[0] === 'ns') {
        notScored.set(parts[1]!, (notScored.get(parts[1]!) ?? 0) + value);
        continue;
      }
      if (parts[0] === 'a' && parts.length === 3) {
        const [scorer, testCaseId, serviceName, agent] = JSON.parse(parts[1]!) as string[];
        options.agents.add(agent!);
        if (!inFilter(filter, scorer!, testCaseId!, serviceName!)) continue;
        add(getOr(byAgent, agent!), parts[2] as keyof Counts, value);
        continue;
      }
      if (parts[0] !== 'r' || parts.length !== 3) continue;
      const group = parts[1]!;
      const metric = parts[2] as keyof Counts;
      const [scorer, targetKind, suite, testCaseId, serviceName] = JSON.parse(group) as string[];
      options.scorers.add(scorer!);
      options.testCases.add(testCaseId!);
      options.services.add(serviceName!);
      if (!inFilter(filter, scorer!, testCaseId!, serviceName!)) continue;
      add(total, metric, value);
      add(getOr(byScorer, scorer!), metric, value);
      add(getOr(byTarget, JSON.stringify([targetKind, suite, testCaseId, scorer])), metric, value);
      add(getOr(byService, serviceName!), metric, value);
      if (metric === 'pass' || metric === 'fail') {
        const key = `${minuteUnixMs}${FIELD_SEP}${scorer}`;
        let point = timeline.get(key);
        if (!point)
          timeline.set(key, (point = { minuteUnixMs, scorer: scorer!, pass: 0, fail: 0 }));
        point[metric] += value;
      }
    }
  }
  return {
    fromUnixMs,
    toUnixMs,
    total: finish(total),
    byScorer: [...byScorer]
      .map(([scorer, c]) => ({ scorer, ...finish(c) }))
      .sort((a, b) => a.scorer.localeCompare(b.scorer)),
    byTarget: [...byTarget]
      .map(([key, c]) => {
        const [targetKind, suite, testCaseId, scorer] = JSON.parse(key) as [
          'test_case' | 'rule',
          string,
          string,
          string,
        ];
        return { targetKind, suite, testCaseId, scorer, ...finish(c) };
      })
      .sort((a, b) => a.testCaseId.localeCompare(b.testCaseId) || a.scorer.localeCompare(b.scorer)),
    byService: [...byService].map(([serviceName, c]) => ({ serviceName, ...finish(c) })),
    byAgent: [...byAgent]
      .map(([agent, c]) => ({ agent, ...finish(c), blamed: c.blame }))
      .sort((a, b) => a.agent.localeCompare(b.agent)),
    timeline: [...timeline.values()],
    notScored: [...notScored]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count),
    failedTraces,
    sessions,
    options: {
      scorers: [...options.scorers].sort(),
      testCases: [...options.testCases].sort(),
      services: [...options.services].sort(),
      agents: [...options.agents].sort(),
    },
  };
}

/** True when a group of these scorer, test case and service is in the summary's filter. */
function inFilter(
  filter: SummaryFilter,
  scorer: string,
  testCaseId: string,
  serviceName: string,
): boolean {
  return (
    (filter.scorer === undefined || scorer === filter.scorer) &&
    (filter.testCase === undefined || testCaseId === filter.testCase) &&
    (filter.service === undefined || serviceName === filter.service)
  );
}

interface Counts {
  n: number;
  pass: number;
  fail: number;
  skip: number;
  err: number;
  sum: number;
  cost: number;
  blame: number;
}

function emptyGroup(): Counts {
  return { n: 0, pass: 0, fail: 0, skip: 0, err: 0, sum: 0, cost: 0, blame: 0 };
}

function getOr(map: Map<string, Counts>, key: string): Counts {
  let c = map.get(key);
  if (!c) map.set(key, (c = emptyGroup()));
  return c;
}

function add(c: Counts, metric: keyof Counts, value: number): void {
  if (metric in c) c[metric] += value;
}

function finish(c: Counts): SummaryGroup {
  const labelled = c.pass + c.fail;
  return {
    count: c.n,
    pass: c.pass,
    fail: c.fail,
    skipped: c.skip,
    failed: c.err,
    passRate: labelled ? c.pass / labelled : null,
    meanScore: labelled ? c.sum / labelled : null,
    judgeCostUsd: Math.round(c.cost * 1e6) / 1e6,
  };
}

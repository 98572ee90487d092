import { describe, expect, it } from 'vitest';
import { admissionVerdict, type AdmissionLimits, type BacklogState } from './backlog-admission.js';

const limits: AdmissionLimits = {
  maxQueuedTraces: 100,
  maxBacklogAgeMs: 600_000,
  maxRedisMemoryRatio: 0.9,
  workerAbsenceMs: 300_000,
};
const T = 10_000_000;
const calm: BacklogState = {
  queuedTraces: 5,
  oldestQueuedAtMs: T - 1_000,
  redisMemoryRatio: 0.2,
  workerSeenAtMs: T - 2_000,
};

describe('admissionVerdict', () => {
  it('admits a calm backlog', () => {
    expect(admissionVerdict(calm, limits, T, 0)).toBeUndefined();
  });

  it('refuses by age, memory, absent workers (503) and count (429), naming the setting', () => {
    const refused = (state: Partial<BacklogState>, startedAtMs = 0) =>
      admissionVerdict({ ...calm, ...state }, limits, T, startedAtMs);
    expect(refused({ oldestQueuedAtMs: T - 600_001 })).toMatchObject({
      reason: 'backlog_age',
      status: 503,
      message: expect.stringContaining('waited 600 s (admission.maxBacklogAgeMs 600000 ms)'),
    });
    expect(refused({ redisMemoryRatio: 0.93 })).toMatchObject({
      reason: 'redis_memory',
      status: 503,
      message: expect.stringContaining('Redis is 93% full'),
    });
    expect(refused({ workerSeenAtMs: T - 300_001 })).toMatchObject({
      reason: 'no_workers',
      status: 503,
    });
    expect(refused({ queuedTraces: 100 })).toMatchObject({ reason: 'queued_traces', status: 429 });
  });

  it('counts worker absence from start-up when no worker was ever seen', () => {
    const never = { ...calm, workerSeenAtMs: undefined };
    expect(admissionVerdict(never, limits, T, T - 299_000)).toBeUndefined();
    expect(admissionVerdict(never, limits, T, T - 301_000)).toMatchObject({
      reason: 'no_workers',
    });
  });

  it('holds a ten-minute worker outage with the defaults (15 min), refusing only past it', () => {
    const defaults = { ...limits, maxBacklogAgeMs: 900_000, workerAbsenceMs: 900_000 };
    const down = { ...calm, oldestQueuedAtMs: T - 600_000, workerSeenAtMs: T - 600_000 };
    expect(admissionVerdict(down, defaults, T, 0)).toBeUndefined();
  });
});

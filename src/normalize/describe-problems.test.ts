import type { ErrorObject } from 'ajv';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { checkArguments } from './check-arguments.js';
import { DESCRIBE_LIMITS, describeProblems, PROBLEM_LIMITS } from './describe-problems.js';
import { resetValidators } from './schema-validators.js';

/**
 * Describing a check's problems is work done on what the arguments and schema hold: it is bounded
 * in errors read, path characters read and quotes made, however many errors Ajv reports.
 */

// `count` errors like Ajv's, counting those whose keyword (read to describe one) is read.
function countedErrors(
  count: number,
  error: (i: number) => Omit<ErrorObject, 'schemaPath'>,
): { errors: ErrorObject[]; described: () => number } {
  const described = new Set<number>();
  const errors = Array.from({ length: count }, (_, i) => {
    const e = { schemaPath: '#', ...error(i) };
    return new Proxy(e, {
      get(target, key, receiver) {
        if (key === 'keyword') described.add(i);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  });
  return { errors, described: () => described.size };
}

beforeEach(() => resetValidators());
afterAll(() => resetValidators());

describe('describeProblems', () => {
  it('reads a bounded number of errors, however many there are, and says there are more', () => {
    const { errors, described } = countedErrors(4_990, i => ({
      instancePath: `/k/${i}`,
      keyword: 'type',
      params: { type: 'string' },
      message: 'must be string',
    }));
    const problems = describeProblems(errors);
    expect(described()).toBeLessThanOrEqual(DESCRIBE_LIMITS.maxErrors);
    expect(problems).toHaveLength(PROBLEM_LIMITS.maxProblems + 1);
    expect(problems.at(-1)).toBe('… and more');
  });

  it("reads a bounded number of a long path's characters: each path read is copied whole", () => {
    // A 250,000-character key: Ajv's path for each of its items is a rope the first read copies.
    const key = 'k'.repeat(250_000);
    const { errors, described } = countedErrors(4_990, i => ({
      instancePath: `/${key}/${i}`,
      keyword: 'type',
      params: { type: 'string' },
      message: 'must be string',
    }));
    const problems = describeProblems(errors);
    // The path characters described fit the bound, the first error's whatever its length.
    expect(described() * (key.length + 6)).toBeLessThanOrEqual(
      DESCRIBE_LIMITS.maxPathChars + key.length + 6,
    );
    expect(described()).toBeGreaterThan(0);
    expect(problems.at(-1)).toBe('… and more');
  });

  it("quotes an enum's allowed values once, however many errors share them", () => {
    // 4,096 identical errors (an enum reached through nested allOf), each listing an object.
    let keyReads = 0;
    const allowed = new Proxy(
      Object.fromEntries(Array.from({ length: 930 }, (_, i) => [`k${i}`, 0])),
      {
        ownKeys(target) {
          keyReads++;
          return Reflect.ownKeys(target);
        },
      },
    );
    const allowedValues = [allowed];
    const { errors } = countedErrors(4_096, () => ({
      instancePath: '',
      keyword: 'enum',
      params: { allowedValues },
      message: 'must be equal to one of the allowed values',
    }));
    const problems = describeProblems(errors);
    expect(problems[0]).toMatch(/^\/: must be one of \{"k0":0,"k1":0,/);
    expect(keyReads).toBe(1);
  });

  it("keeps the distinct problems under one long key apart, each path's last segment kept", () => {
    // 20 bad items under a 300-character key: cut paths were alike and merged into one problem.
    const schema = {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    };
    const key = 'k'.repeat(300);
    const result = checkArguments(schema, { [key]: Array<number>(20).fill(1) }, undefined, {
      now: () => 1e9,
    });
    const problems = result.status === 'invalid' ? result.problems : [];
    expect(problems).toHaveLength(PROBLEM_LIMITS.maxProblems + 1);
    problems.slice(0, -1).forEach((p, i) => {
      expect(p).toMatch(new RegExp(`^/k+…/${i}: must be string$`));
      expect(Buffer.byteLength(p.slice(0, p.indexOf(': ')))).toBeLessThanOrEqual(
        PROBLEM_LIMITS.maxQuotedBytes,
      );
    });
    expect(problems.at(-1)).toBe(`… and ${20 - PROBLEM_LIMITS.maxProblems} more`);
  });

  it('tells apart problems whose cut paths read alike: distinct keys, one problem each', () => {
    // Two 300-character keys differing only past the cut: two problems, not one.
    const errors = ['a', 'b'].map(c => ({
      instancePath: `/${'k'.repeat(250)}${c}${'k'.repeat(49)}`,
      schemaPath: '#',
      keyword: 'type',
      params: { type: 'string' },
      message: 'must be string',
    }));
    expect(describeProblems(errors)).toHaveLength(2);
    expect(describeProblems([errors[0]!, errors[0]!])).toHaveLength(1);
  });
});

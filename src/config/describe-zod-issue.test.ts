import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { configSchema } from './config-schema.js';
import { describeZodIssue } from './describe-zod-issue.js';

/** The message of the unknown-key issue `configSchema` finds in `input`. */
function describeConfig(input: unknown): string {
  const issues = configSchema.safeParse(input).error?.issues ?? [];
  return describeZodIssue(
    issues.find(i => i.code === 'unrecognized_keys')!,
    configSchema,
  );
}

describe('describeZodIssue', () => {
  it.each([
    [
      'at the top level',
      { toolHeath: {} },
      'unknown field(s) "toolHeath" (did you mean "toolHealth"?)',
    ],
    [
      'at the top level, letters swapped',
      { reciever: {} },
      'unknown field(s) "reciever" (did you mean "receiver"?)',
    ],
    [
      'in a section',
      { assembly: { settleMS: 10 } },
      'unknown field(s) "settleMS" (did you mean "settleMs"?)',
    ],
    [
      'in a section of a section',
      { judge: { rateLimit: { duration: 1 } } },
      'unknown field(s) "duration" (did you mean "durationMs"?)',
    ],
    [
      'in a list item',
      { rules: [{ name: 'r', scorers: ['tool_errors'], mtach: {} }] },
      'unknown field(s) "mtach" (did you mean "match"?)',
    ],
    [
      'inside a list item',
      { rules: [{ name: 'r', scorers: ['tool_errors'], match: { servce: 'a' } }] },
      'unknown field(s) "servce" (did you mean "service"?)',
    ],
    [
      'in a map entry of a section',
      { judge: { prices: { m: { inputPerMilionTokens: 1, outputPerMillionTokens: 1 } } } },
      'unknown field(s) "inputPerMilionTokens" (did you mean "inputPerMillionTokens"?)',
    ],
  ])('suggests the key meant %s', (_where, input, message) => {
    expect(describeConfig(input)).toBe(message);
  });

  it('suggests nothing for a key near no known one, and names each key meant when there are several', () => {
    expect(describeConfig({ flags: { max: 10 } })).toBe('unknown field(s) "flags"');
    expect(describeConfig({ receiver: { prot: 1, hots: 'x', colour: 'red' } })).toBe(
      'unknown field(s) "prot", "hots", "colour" (did you mean "port" for "prot", "host" for "hots"?)',
    );
  });

  it("without a schema, names the unknown keys only; other issues keep zod's message", () => {
    const issue = configSchema.safeParse({ toolHeath: {} }).error!.issues[0]!;
    expect(describeZodIssue(issue)).toBe('unknown field(s) "toolHeath"');
    const other = z.number().safeParse('x').error!.issues[0]!;
    expect(describeZodIssue(other, configSchema)).toBe(other.message);
  });
});

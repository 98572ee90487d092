import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { checkArguments, CHECK_LIMITS, traceCheckBudget } from './check-arguments.js';
import { resetValidators } from './schema-validators.js';

/**
 * The text of what a check found is stored with each call's result and shown: what it quotes
 * from a schema or the arguments (allowed values, patterns, property names) is cut, and counted
 * here in UTF-8 bytes.
 */

const bytes = (texts: readonly string[] = []): number =>
  texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
const clock = () => {
  let t = 0;
  return () => (t += 60_000);
};
const check = (schema: unknown, args: unknown) =>
  checkArguments(schema, args, traceCheckBudget(), { now: clock() });
const problemsOf = (result: ReturnType<typeof checkArguments>): string[] =>
  result.status === 'invalid' ? result.problems : [];

beforeEach(() => resetValidators());
afterAll(() => resetValidators());

describe('checkArguments problem text', () => {
  it("bounds an enum's problem: each allowed value cut, the list cut to the problem's bytes", () => {
    // Ten allowed values of 3,000 '€' each (9 KB in UTF-8, the schema within its 32 KB): each of
    // a call's ten problems quoted all ten, 200 characters of each (6 KB a problem, 60 KB a call).
    const values = Array.from({ length: 10 }, (_, i) => `${i}${'€'.repeat(3_000)}`);
    const schema = { type: 'array', items: { enum: values } };
    const problems = problemsOf(
      check(
        schema,
        Array.from({ length: 50 }, (_, i) => i),
      ),
    );
    expect(problems).toHaveLength(CHECK_LIMITS.maxProblems + 1);
    expect(problems.at(-1)).toBe('… and more');
    for (const p of problems) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(1_024);
    expect(bytes(problems)).toBeLessThanOrEqual(11 * 1_024);
    // Still says where and what: the path, the first values quoted (each cut, with an ellipsis,
    // at most 200 bytes), and how many more are allowed.
    expect(problems[0]).toMatch(/^\/0: must be one of "0€+…, "1€+…, .* \(and \d more\)$/);
    const first = /"0€+…/.exec(problems[0]!)![0];
    expect(Buffer.byteLength(first)).toBeLessThanOrEqual(200);
  });

  it('cuts a pattern a problem quotes: a 30,000-character class is 7 instructions', () => {
    // Ajv's message copied the pattern whole: 30 KB a problem, 300 KB a call.
    const pattern = `^[${'a'.repeat(30_000)}]$`;
    const schema = { type: 'array', items: { type: 'string', pattern } };
    const problems = problemsOf(
      check(
        schema,
        Array.from({ length: 20 }, () => 'b'),
      ),
    );
    expect(problems).toHaveLength(CHECK_LIMITS.maxProblems + 1);
    expect(problems[0]).toMatch(/^\/0: must match pattern "\^\[a+…"$/);
    for (const p of problems) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(300);
    expect(bytes(problems)).toBeLessThanOrEqual(11 * 300);
  });

  it('cuts the property names a problem quotes: required, dependencies, additional', () => {
    const long = (c: string) => c.repeat(10_000);
    const schema = {
      type: 'object',
      required: [long('r')],
      dependencies: { a: [long('d')] },
      additionalProperties: false,
      properties: { a: {} },
    };
    const problems = problemsOf(check(schema, { a: 1, [long('x')]: 1 }));
    expect(problems).toEqual([
      expect.stringMatching(/^\/: must have required property 'r+…'$/),
      expect.stringMatching(/^\/: must NOT have additional property 'x+…'$/),
      expect.stringMatching(/^\/: must have property 'd+…' when property 'a' is present$/),
    ]);
    for (const p of problems) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(300);
  });

  it('names a few of the patterns RE2 cannot run, each cut, and counts the rest', () => {
    // 150 lookarounds of 90 characters: the note named every one, 80 characters each (13 KB).
    const properties = Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => [
        `p${i}`,
        { type: 'string', pattern: `(?=${i})${'z'.repeat(90)}` },
      ]),
    );
    const result = check({ type: 'object', properties }, { p0: 'a' });
    expect(result.status).toBe('valid');
    const notes = (result as { notes?: string[] }).notes ?? [];
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^pattern "\(\?=0\)z+", .* \(and 145 more\) not checked: RE2/);
    expect(bytes(notes)).toBeLessThanOrEqual(1_200);
  });
});

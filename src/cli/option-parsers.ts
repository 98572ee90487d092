import { InvalidArgumentError } from 'commander';

/** `--label KEY=VALUE`, repeatable: the labels so far with this one. */
export function collectLabel(
  value: string,
  labels: Record<string, string>,
): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError('expected KEY=VALUE, e.g. git.sha=abc123');
  return { ...labels, [value.slice(0, eq)]: value.slice(eq + 1) };
}

/** A significance level: a number strictly between 0 and 1. */
export function parseAlpha(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('expected a number between 0 and 1');
  return n;
}

/** A positive number. */
export function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

/** A repeatable option: the values so far with this one. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Whether `value` is a multiple of `divisor` (JSON Schema's `multipleOf`), exactly, as decimals:
 * each number becomes the decimal it is written as (its shortest round-trip form, `0.3` is 3 ×
 * 10⁻¹) and the remainder is taken in integers. A division in floating point gets both ends
 * wrong: `0.3 / 0.1` is 2.9999999999999996, and Ajv's `q !== parseInt(q)` reads 1e21 as 1, while a
 * tolerance on the quotient calls 5e-324 a multiple of 1. Only finite numbers and a positive
 * divisor: anything else is no multiple. The work is bounded by the exponents of doubles (a power
 * of ten below 10⁶⁴⁰). Pure.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor <= 0) return false;
  if (value === 0) return true;
  const [v, ve] = decimal(value);
  const [d, de] = decimal(divisor);
  const shift = ve - de;
  return shift >= 0
    ? (v * 10n ** BigInt(shift)) % d === 0n
    : v % (d * 10n ** BigInt(-shift)) === 0n;
}

// A finite number as coefficient × 10^exponent, both integers (`19.99` is [1999n, -2]).
function decimal(n: number): [bigint, number] {
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  const point = mantissa.indexOf('.');
  const fraction = point < 0 ? 0 : mantissa.length - point - 1;
  return [BigInt(mantissa.replace('.', '')), Number(exponent) - fraction];
}

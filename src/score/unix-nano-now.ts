// hrtime is monotonic but not wall-clock; anchor it to the Unix epoch once.
const epochOffset = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

/** The wall clock in Unix nanoseconds, read from the monotonic clock (scorers' start and end). */
export function unixNanoNow(): bigint {
  return process.hrtime.bigint() + epochOffset;
}

/**
 * Waits for `work` to settle (resolve or reject: a failure is not rethrown), at most `ms` (a
 * negative `ms` waits for nothing). Resolves `true` when it settled in time, `false` when the time
 * ran out first. For shutdowns, which wait for what is under way only until a deadline. A missing
 * `work` has settled.
 */
export async function settledWithin(
  work: Promise<unknown> | undefined,
  ms: number,
): Promise<boolean> {
  if (!work) return true;
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>(resolve => (timer = setTimeout(() => resolve(false), Math.max(0, ms)))),
  ]);
  clearTimeout(timer);
  return settled;
}

/**
 * What two reports of a tool call must share to be one call reported twice (a run and its model's
 * request, or two instrumentations of one run): the call id and the canonical name. An id alone is
 * not enough: providers and frameworks that number calls per response or per step (`call_0`,
 * `toolu_01`) give the same id to different calls of later turns.
 */
export function callKey(callId: string, canonicalName: string): string {
  return `${callId}\u0000${canonicalName}`;
}

/**
 * Characters of JSON the run records hold together, and the results of the ring: past either, the
 * oldest go, whatever `maxRuns` and `maxResults` allow. A record keeps up to 200 calls, each with
 * up to 2,000 characters of arguments, of result and of error, so at `maxRuns` (5,000) records a
 * trace chose to make that large would need gigabytes: 71 traces of 200 such calls (620 KB of
 * gzip) ran the memory driver's 192 MB heap out. Real records are a few kilobytes: 5,000 of them
 * stay far within the bound.
 */
export const MEMORY_STORE_BOUNDS = Object.freeze({
  maxRunChars: 32 * 1024 * 1024,
  maxResultChars: 24 * 1024 * 1024,
});

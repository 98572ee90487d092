import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, redisFor, testPrefix } from '../helpers/redis.js';

const CHILD = fileURLToPath(new URL('./retained-name-views.child.ts', import.meta.url));
/** Each child: about 10-17 s alone, 30 s on a loaded host (past vitest's default). */
const TIMEOUT_MS = 120_000;

/** What the child measured. */
interface Retained {
  traces: number;
  scored: number;
  padding: number;
  retainedBytes: number;
}

/**
 * Runs the child for `args` and returns what it measured (without blocking this process: its
 * Redis connection, if any, stays alive meanwhile).
 */
async function retained(args: string[]): Promise<Retained> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', CHILD, ...args],
    { encoding: 'utf8', timeout: TIMEOUT_MS },
  );
  return JSON.parse(stdout) as Retained;
}

/**
 * What a sender's strings cost after their traces, counted in bytes (heap after a full garbage
 * collection, in a process of its own). A tool name cut and trimmed by the pipeline is, in V8, a
 * view of the sender's whole attribute; the per-tool counters, failure signatures, metric labels
 * and the memory store's trace list kept such views, so each trace's 16-character name held its
 * attribute (36 MB for these 36 traces of 1 MB, ~2 GB for 32 names cut from 64 MiB bodies); the
 * memory store's results and trace list kept service names and versions so. A name
 * sliced from a span name (`execute_tool <name>`) was kept the same way by the tool-name cache,
 * for up to 10,000 names. Kept as copies, the names cost their own length. The bound, 10
 * paddings (10 MB), leaves room for what the service holds whatever the padding (its caches and
 * the last request's leftovers: 4.2-4.6 MB measured) and is far below one padding a trace (36 MB;
 * 72 MB with a service's name and version).
 */
describe.sequential('names cut from what a sender wrote are not kept as views of it', () => {
  it(
    'memory driver: the heap after the traces are scored does not hold their attributes',
    async () => {
      const { traces, scored, padding, retainedBytes } = await retained(['attribute', 'memory']);
      expect(scored).toBe(traces);
      expect(retainedBytes).toBeLessThan(10 * padding);
    },
    TIMEOUT_MS,
  );

  it(
    'bullmq driver: the same',
    async () => {
      const redis = redisFor(testPrefix());
      try {
        const { traces, scored, padding, retainedBytes } = await retained([
          'attribute',
          'bullmq',
          REDIS_URL,
          redis.prefix,
        ]);
        expect(scored).toBe(traces);
        expect(retainedBytes).toBeLessThan(10 * padding);
      } finally {
        await redis.cleanup();
      }
    },
    TIMEOUT_MS,
  );

  it(
    'a name taken from the span name is not kept as a view of it either',
    async () => {
      const { traces, scored, padding, retainedBytes } = await retained(['span-name', 'memory']);
      expect(scored).toBe(traces);
      expect(retainedBytes).toBeLessThan(10 * padding);
    },
    TIMEOUT_MS,
  );

  it(
    'memory driver: a held span does not keep the whole service name it was cut from',
    async () => {
      // Cut at decoding (256 characters), the name was a view: these 36 requests of about 1 KB of
      // gzip held 39 MB while their traces waited for a parent (3 MB now).
      const { traces, scored, padding, retainedBytes } = await retained(['held-service', 'memory']);
      expect(scored).toBe(0);
      expect(traces).toBe(36);
      expect(retainedBytes).toBeLessThan(10 * padding);
    },
    TIMEOUT_MS,
  );

  it(
    'memory driver: a service name and version cut and trimmed are not kept as views either',
    async () => {
      // The results ring and the trace list kept them: one padding a trace.
      const { traces, scored, padding, retainedBytes } = await retained(['service', 'memory']);
      expect(scored).toBe(traces);
      expect(retainedBytes).toBeLessThan(10 * padding);
    },
    TIMEOUT_MS,
  );
});

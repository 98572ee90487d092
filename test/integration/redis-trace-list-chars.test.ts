/**
 * A page of the trace list reads each listed line's run record whole. A record keeps up to 200
 * tool calls with 2,000 characters each of arguments and result: how much of them one page
 * reads, on a real Redis, counted in characters parsed (never timed).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { whenReady } from '../../src/redis/redis-connection.js';
import { MAX_LIST_CHARS, readTraceList } from '../../src/redis/read-trace-list.js';
import { resultsStoreKeys } from '../../src/redis/results-store-keys.js';
import { parsedChars } from '../helpers/counting-calls.js';
import { traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('Redis trace list: records of many large tool calls', () => {
  it('reads a bounded number of their characters a page, and pages on through all', async () => {
    const RECORDS = 40;
    const prefix = testPrefix();
    const redis = redisFor(prefix);
    closers.push(() => redis.cleanup());
    await whenReady(redis.commands);
    const keys = resultsStoreKeys(prefix);
    const now = Date.now();
    // Records as the store writes them (an export line, the record's JSON), each about 820 KB.
    const call = {
      name: 'search',
      status: 'ok',
      arguments: 'a'.repeat(2000),
      result: 'r'.repeat(2000),
    };
    for (let i = 0; i < RECORDS; i++) {
      const id = traceId(i);
      const record = {
        traceId: id,
        state: 'scored',
        reason: null,
        testCaseId: null,
        serviceName: 'travel-agent',
        serviceVersion: null,
        matched: [],
        updatedAtUnixMs: now,
        toolCalls: new Array(200).fill(call),
      };
      await redis.commands.set(keys.runKey(id), `E\n${JSON.stringify(record)}`);
      await redis.commands.xadd(keys.listStream, '*', 'n', '1', 'r', `${id} ${now}`);
    }
    const recordChars = await redis.commands.strlen(keys.runKey(traceId(0)));
    expect(recordChars).toBeGreaterThan(800_000);

    // A filter no record passes reads every line it may: at most the bound, and a round trip's
    // record more. Whole, 40 records were 33 MB.
    const page = (filter: { service: string }, cursor?: string) =>
      readTraceList(redis.commands, keys, filter, 50, cursor, now - 60_000);
    let first: Awaited<ReturnType<typeof page>> | undefined;
    const parsed = await parsedChars(async () => (first = await page({ service: 'none' })));
    expect(parsed).toBeLessThanOrEqual(MAX_LIST_CHARS + recordChars);
    expect(first!.traces).toEqual([]);
    expect(first!.nextCursor).not.toBeNull();

    // Its cursor goes on where it stopped: every record is listed once, over a few pages.
    const listed: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const next = await page({ service: 'travel-agent' }, cursor ?? undefined);
      listed.push(...next.traces.map(t => t.traceId));
      cursor = next.nextCursor;
      pages++;
    } while (cursor);
    expect(listed.sort()).toEqual(Array.from({ length: RECORDS }, (_, i) => traceId(i)).sort());
    expect(pages).toBeGreaterThan(1);
  });
});

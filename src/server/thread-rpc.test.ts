import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';
import { answerCalls, rpcClient, Transferred } from './thread-rpc.js';

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

/** Two ends of a channel: a client on one, `handlers` answering on the other. */
function ends(handlers: Parameters<typeof answerCalls>[1]) {
  const channel = new MessageChannel();
  channels.push(channel);
  answerCalls(channel.port2, handlers);
  return rpcClient(channel.port1);
}

describe('calls across threads', () => {
  it('answers each call with its own value, in whatever order they finish', async () => {
    const client = ends({
      slow: async (x: number) => {
        await new Promise(resolve => setTimeout(resolve, 20));
        return x * 2;
      },
      fast: (s: string) => s.toUpperCase(),
      map: () => new Map([['a', { n: 1n }]]),
    });
    const slow = client.call<number>('slow', [21]);
    const fast = client.call<string>('fast', ['ok']);
    expect(await fast).toBe('OK');
    expect(await slow).toBe(42);
    // Structured clone: a Map of objects with a bigint arrives as one.
    expect(await client.call('map', [])).toEqual(new Map([['a', { n: 1n }]]));
  });

  it('rejects with the error thrown there: a SpanscoreError keeps its code and Retry-After', async () => {
    const client = ends({
      full: () => {
        throw new SpanscoreError('SS_INGEST_SATURATED', 'buffer full', { retryAfterSeconds: 3 });
      },
      broken: () => Promise.reject(new TypeError('bad input')),
    });
    const full = await client.call('full', []).catch((e: unknown) => e);
    expect(isSpanscoreError(full)).toBe(true);
    expect(full).toMatchObject({
      code: 'SS_INGEST_SATURATED',
      message: 'buffer full',
      retryAfterSeconds: 3,
    });
    await expect(client.call('broken', [])).rejects.toThrow('bad input');
    await expect(client.call('nothing', [])).rejects.toThrow(
      'no such call across threads: nothing',
    );
  });

  it('does not take a method from the handlers’ prototype', async () => {
    const client = ends({});
    await expect(client.call('toString', [])).rejects.toThrow(
      'no such call across threads: toString',
    );
  });

  it('moves the buffers it is told to, both ways: the sender’s copy is detached', async () => {
    let received: Uint8Array | undefined;
    const reply = new Uint8Array([4, 5, 6]);
    const client = ends({
      take: (bytes: Uint8Array) => {
        received = bytes;
        return new Transferred(reply, [reply.buffer]);
      },
    });
    const sent = new Uint8Array([1, 2, 3]);
    const answer = await client.call<Uint8Array>('take', [sent], [sent.buffer]);
    expect([...received!]).toEqual([1, 2, 3]);
    expect(sent.byteLength).toBe(0);
    expect([...answer]).toEqual([4, 5, 6]);
    expect(reply.byteLength).toBe(0);
  });

  it('once closed, rejects the calls still waiting and every later one with the reason', async () => {
    const client = ends({ never: () => new Promise(() => {}) });
    const waiting = client.call('never', []);
    const reason = new SpanscoreError('SS_INGEST_UNAVAILABLE', 'the scoring thread failed', {
      retryAfterSeconds: 5,
    });
    client.closed(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(client.call('never', [])).rejects.toBe(reason);
  });

  it('runs a notification and sends nothing back, even when it throws', async () => {
    const seen: string[] = [];
    const client = ends({
      note: (s: string) => void seen.push(s),
      fails: () => {
        throw new Error('ignored');
      },
      echo: (s: string) => s,
    });
    client.notify('note', ['a']);
    client.notify('fails', []);
    // A call after them is answered after them (one channel, in order).
    expect(await client.call('echo', ['b'])).toBe('b');
    expect(seen).toEqual(['a']);
  });
});

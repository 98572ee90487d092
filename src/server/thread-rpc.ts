import type { MessagePort, Transferable, Worker } from 'node:worker_threads';
import { isSpanscoreError, SpanscoreError } from '../errors/spanscore-error.js';
import type { ErrorCode } from '../errors/error-codes.js';

/** Either end of a thread's channel: the parent's `Worker`, or the thread's `parentPort`. */
export type ThreadPort = Pick<MessagePort | Worker, 'postMessage' | 'on' | 'off'>;

/** A call's answer as it crosses: a value (structured-cloned), or the error it threw. */
type Answer =
  | { rpc: 'answer'; id: number; value: unknown }
  | { rpc: 'answer'; id: number; error: CrossedError };

/** A thrown error as it crosses threads: what the caller's catch reads of it. */
export interface CrossedError {
  message: string;
  /** Set for a `SpanscoreError`: rebuilt as one, so `isSpanscoreError` and its code hold. */
  code?: ErrorCode;
  retryAfterSeconds?: number;
}

/**
 * A value a handler answers with whose buffers move to the caller instead of being copied:
 * `value` crosses, `transfer`'s buffers are no longer usable in the answering thread.
 */
export class Transferred<T> {
  constructor(
    readonly value: T,
    readonly transfer: readonly Transferable[],
  ) {}
}

/** The calling end: each call's answer resolves its promise, in any order. */
export interface RpcClient {
  /**
   * Calls `method` in the other thread with `args` (structured-cloned; `transfer`'s buffers move)
   * and resolves with its answer. Rejects with the error the handler threw (a `SpanscoreError`
   * keeps its code and `retryAfterSeconds`), or with `closed`'s reason once the channel closed.
   */
  call<T>(method: string, args: readonly unknown[], transfer?: readonly Transferable[]): Promise<T>;
  /** Sends without waiting for an answer (none comes). */
  notify(method: string, args: readonly unknown[]): void;
  /** Rejects every call still waiting, and every later one, with `reason`. */
  closed(reason: Error): void;
}

/**
 * The calling end of `port`. Contract: one client per port; the answering end is
 * {@link answerCalls} on the other side.
 */
export function rpcClient(port: ThreadPort): RpcClient {
  let next = 1;
  let closedWith: Error | undefined;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  port.on('message', (message: Answer | { rpc?: undefined }) => {
    if (message.rpc !== 'answer') return;
    const call = waiting.get(message.id);
    if (!call) return;
    waiting.delete(message.id);
    if ('error' in message) call.reject(rebuildError(message.error));
    else call.resolve(message.value);
  });
  return {
    call<T>(method: string, args: readonly unknown[], transfer: readonly Transferable[] = []) {
      if (closedWith) return Promise.reject(closedWith);
      const id = next++;
      return new Promise<unknown>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        port.postMessage({ rpc: 'call', id, method, args }, transfer as Transferable[]);
      }) as Promise<T>;
    },
    notify(method, args) {
      if (!closedWith) port.postMessage({ rpc: 'call', id: 0, method, args });
    },
    closed(reason) {
      closedWith ??= reason;
      for (const call of waiting.values()) call.reject(reason);
      waiting.clear();
    },
  };
}

/**
 * Answers the calls {@link rpcClient} sends on `port` with `handlers[method](...args)`: its value
 * (or a {@link Transferred} one), or the error it threw or rejected with. A call of an unknown
 * method is answered with an error naming it.
 */
export function answerCalls(
  port: ThreadPort,
  handlers: Readonly<Record<string, (...args: never[]) => unknown>>,
): void {
  port.on('message', (message: { rpc?: string; id: number; method: string; args: never[] }) => {
    if (message.rpc !== 'call') return;
    const { id, method, args } = message;
    const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
    new Promise<unknown>(resolve => {
      if (!handler) throw new Error(`no such call across threads: ${method}`);
      resolve(handler(...args));
    }).then(
      (value: unknown) => {
        if (id === 0) return;
        if (value instanceof Transferred) {
          const moved = value as Transferred<unknown>;
          port.postMessage({ rpc: 'answer', id, value: moved.value }, [...moved.transfer]);
        } else port.postMessage({ rpc: 'answer', id, value });
      },
      (error: unknown) => {
        if (id !== 0) port.postMessage({ rpc: 'answer', id, error: crossError(error) });
      },
    );
  });
}

/** `error` as it can cross threads ({@link rebuildError} makes it an error again). */
export function crossError(error: unknown): CrossedError {
  if (isSpanscoreError(error))
    return {
      message: error.message,
      code: error.code,
      ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
    };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** The error {@link crossError} sent: a `SpanscoreError` with its code, or an `Error`. */
export function rebuildError(error: CrossedError): Error {
  if (!error.code) return new Error(error.message);
  return new SpanscoreError(error.code, error.message, {
    ...(error.retryAfterSeconds !== undefined && { retryAfterSeconds: error.retryAfterSeconds }),
  });
}

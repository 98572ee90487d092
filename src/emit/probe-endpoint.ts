import { connect } from 'node:net';

/**
 * Whether anything listens at an HTTP(S) endpoint: one TCP connection, closed at once. Resolves
 * with the problem (`ECONNREFUSED`, `timed out after 1000 ms`, an unusable URL), or `undefined`
 * when a connection was made. Says nothing of what answers: only that something does.
 *
 * A timeout is only the verdict when nothing else arrived: the process that probes is often busy
 * starting up, and when its event loop was held past `timeoutMs` the timer fires before the
 * connection's outcome is read, though the kernel had it long before. The timer therefore waits
 * one turn of the loop (`setImmediate` runs after pending I/O) before it says "timed out".
 */
export function probeEndpoint(url: string, timeoutMs = 1000): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.resolve('not a URL');
  }
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  return new Promise(resolve => {
    const socket = connect({ host, port });
    let settled = false;
    const done = (problem: string | undefined): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => setImmediate(() => done(`timed out after ${timeoutMs} ms`)));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

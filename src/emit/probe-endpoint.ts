import { connect } from 'node:net';

/**
 * Whether anything listens at an HTTP(S) endpoint: one TCP connection, closed at once. Resolves
 * with the problem (`ECONNREFUSED`, `timed out after 1000 ms`, an unusable URL), or `undefined`
 * when a connection was made. Says nothing of what answers: only that something does.
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
    const done = (problem: string | undefined): void => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(timeoutMs, () => done(`timed out after ${timeoutMs} ms`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

import type { FastifyReply } from 'fastify';

/**
 * An abort signal for the sender of `reply`'s request leaving before it is answered (its
 * connection closed: the response's `close` comes before the response finished), with an error
 * saying so as its reason; `stop` stops listening once the request is answered. Already aborted
 * when the connection closed before this was called. For a sink that may hold a request while its
 * buffer is full (`SpanSink.accept`): what nobody was told is taken is let go, and its exporter
 * sends it again.
 */
export function senderGone(reply: FastifyReply): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const response = reply.raw;
  const onClose = (): void => {
    if (!response.writableFinished)
      controller.abort(
        new Error('the sender closed its connection while the request waited for room'),
      );
  };
  if (response.destroyed || response.socket?.destroyed) onClose();
  else response.once('close', onClose);
  return { signal: controller.signal, stop: () => response.off('close', onClose) };
}

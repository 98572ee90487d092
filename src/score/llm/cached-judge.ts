import { createHash } from 'node:crypto';
import type { Judge, JudgeAnswer, JudgeRequest } from './judge.js';
import type { JudgeCache } from './judge-cache.js';

/** The cache key of a request: a SHA-256 of the model, both prompts and the output schema. */
export function judgeCacheKey(request: JudgeRequest<unknown>): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        request.model,
        request.system,
        request.user,
        request.schemaName,
        request.jsonSchema,
      ]),
    )
    .digest('hex');
}

/**
 * A judge that answers a request it has seen (same model, prompts and schema) from `cache`, with
 * `cached: true`, zero usage and zero cost, so rescoring an unchanged trace costs nothing. A
 * cached answer is validated again by the request's `parse`; one that no longer passes is asked
 * anew. The cache is an optimization: when it cannot be read or written, the judge is asked and
 * scoring goes on (`onCacheError` hears about it).
 */
export function withJudgeCache(
  judge: Judge,
  cache: JudgeCache,
  onCacheError?: (error: unknown) => void,
): Judge {
  return {
    async ask<T>(request: JudgeRequest<T>): Promise<JudgeAnswer<T>> {
      const key = judgeCacheKey(request);
      const hit = await cache.get(key).catch((error: unknown) => {
        onCacheError?.(error);
        return undefined;
      });
      if (hit) {
        try {
          return {
            output: request.parse(hit.output),
            model: hit.model,
            usage: { inputTokens: 0, outputTokens: 0 },
            cached: true,
            costUsd: 0,
          };
        } catch {
          // Written by an older prompt schema: ask again and overwrite it.
        }
      }
      const answer = await judge.ask(request);
      await cache
        .set(key, { output: answer.output, model: answer.model, usage: answer.usage })
        .catch((error: unknown) => onCacheError?.(error));
      return answer;
    },
  };
}

import { cutText } from './cut-text.js';
import { wellFormedText } from './well-formed-text.js';

/**
 * Characters kept of the texts a span takes from its resource and scope: `service.name`,
 * `service.version`, `deployment.environment(.name)` and the scope's name. A sender writes each
 * once per resource or scope, but every span of it carries them: the bullmq driver's span batches
 * write them once per span (so one resource's text was stored once per span of the request), and
 * the results stores write the service name into every result, run record and per-minute counter
 * field. Uncut, a 1 MB `service.name` on 200 one-span traces (a request of 1 MB, a few KB of
 * gzip) held 210 MB in Redis. A real name is far shorter (session ids and the schema registry's
 * names are cut at the same length).
 */
export const MAX_RESOURCE_TEXT_CHARS = 256;

/**
 * `value` cut at {@link MAX_RESOURCE_TEXT_CHARS} UTF-16 units, never between the two halves of a
 * surrogate pair, and a lone surrogate sent in it replaced by U+FFFD (`wellFormedText`): Redis
 * would store either as U+FFFD and the memory driver keep it, one service named two ways. Pure;
 * the value itself when it is short and well formed.
 */
export function resourceText(value: string): string {
  return wellFormedText(cutText(value, MAX_RESOURCE_TEXT_CHARS));
}

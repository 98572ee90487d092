import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { UNKNOWN_SERVICE } from '../../ingest/service-name-of.js';
import { offeredToolsOf } from '../../normalize/assess-tool-calls.js';
import { toolNames } from '../../normalize/canonical-tool-name.js';
import type { ResultSink } from '../result-sink.js';
import { runCalls } from '../run-calls.js';
import type { TraceRun } from '../trace-run.js';
import {
  learnable,
  SCHEMA_REGISTRY_LIMITS,
  type LearnedSchema,
  type SchemaRegistry,
} from './schema-registry.js';
import { schemaText } from './schema-text.js';

/** Options of {@link createSchemaLearningSink}. */
export interface SchemaLearningOptions {
  /** @defaultValue `Date.now` */
  now?: () => number;
  /** Hears what was learned (the lookup remembers it, for this process's next traces). */
  onLearned?: (service: string, version: string, schemas: readonly LearnedSchema[]) => void;
  /** A store that failed to write (logged by the caller); the run goes on. */
  onError?: (error: unknown) => void;
  /**
   * A schema already written for the same slot with the same text is written again at most this
   * often (to keep "seen at" recent and the entry alive), not for every trace. @defaultValue 60000
   */
  refreshMs?: number;
}

/** Slots whose last write this process remembers (to skip writing the same schema again). */
const REMEMBERED_WRITES = 10_000;

/**
 * The result sink that learns the schemas each scored trace offered its models: after a pass in
 * which `tool_arguments` assessed the trace's calls (so traces with tool calls), every tool the
 * trace offered with a schema (the first of each name, at most
 * `SCHEMA_REGISTRY_LIMITS.maxSchemasPerTrace`) is recorded for the trace's service and version
 * (see `SchemaRegistry.put`), unless the service is unnamed (`unknown_service`: not "the same
 * service" as anything) or a name or schema is past a bound (`schemaText`). A schema this process
 * wrote for the same slot within `refreshMs` is not written again, so steady traffic costs the
 * store about one write per tool a minute. Never rejects.
 */
export function createSchemaLearningSink(
  registry: SchemaRegistry,
  options: SchemaLearningOptions = {},
): ResultSink {
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? 60_000;
  const written = new LRUCache<string, { digest: string; atMs: number }>({
    max: REMEMBERED_WRITES,
  });
  /** Writes what `learned` holds that this process has not written lately. */
  const learn = async (learned: OfferedSchemas, at: number): Promise<void> => {
    const { service, version, schemas } = learned;
    const fresh = schemas.filter(s => {
      const key = JSON.stringify([service, version, s.tool]);
      const digest = createHash('sha1').update(s.text).digest('base64');
      const last = written.get(key);
      if (last && last.digest === digest && at - last.atMs < refreshMs) return false;
      written.set(key, { digest, atMs: at });
      return true;
    });
    if (fresh.length === 0) return;
    try {
      await registry.put(service, version, fresh, at);
      options.onLearned?.(service, version, fresh);
    } catch (error) {
      // Written again by a later trace.
      for (const s of fresh) written.delete(JSON.stringify([service, version, s.tool]));
      options.onError?.(error);
    }
  };
  return {
    name: 'schema-learning',
    // Not async: most runs offer nothing to learn (no `tool_arguments` ran), and an async
    // function was an object, its registers and a promise a trace (about 20 heap bytes a span
    // in `bench/budget-figures.child.ts allocation-memory`) for nothing.
    write(run) {
      const at = now();
      const learned = schemasOffered(run, at);
      return learned && learn(learned, at);
    },
  };
}

/** What a pass's trace offered to learn: its service and version, and its schemas. */
interface OfferedSchemas {
  service: string;
  version: string;
  schemas: LearnedSchema[];
}

/** The schemas a pass's trace offered, as the registry keeps them; `undefined` for none. */
function schemasOffered(run: TraceRun, at: number): OfferedSchemas | undefined {
  // A judge pass saw the same spans as the pass before it; a session's turns were learned from.
  if (run.phase === 'llm' || run.session) return undefined;
  const calls = runCalls(run);
  if (!calls?.assessment) return undefined;
  const { trace } = calls;
  const service = trace.serviceName;
  const version = trace.serviceVersion;
  if (service === UNKNOWN_SERVICE || !learnable(service, version)) return undefined;
  const seen = new Set<string>();
  const schemas: LearnedSchema[] = [];
  for (const tools of offeredToolsOf(trace).values())
    for (const tool of tools) {
      if (schemas.length >= SCHEMA_REGISTRY_LIMITS.maxSchemasPerTrace) break;
      if (tool.parameters === undefined || tool.name.length > SCHEMA_REGISTRY_LIMITS.maxNameChars)
        continue;
      const folded = toolNames(tool.name).folded;
      if (seen.has(folded) || !learnable(folded, tool.name)) continue;
      seen.add(folded);
      const text = schemaText(tool.parameters);
      if (text !== undefined)
        schemas.push({
          tool: folded,
          name: tool.name,
          text,
          traceId: run.traceId,
          seenAtUnixMs: at,
        });
    }
  return schemas.length ? { service, version, schemas } : undefined;
}

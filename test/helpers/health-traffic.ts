import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/load-config.js';
import type { EvaluationSpan } from '../../src/emit/score-to-span.js';
import { startService, type Service } from '../../src/server/start-service.js';
import { waitFor } from './redis.js';

const FIXTURES = new URL('../fixtures/otlp/', import.meta.url);

/** The tool-health capture of the AI SDK 7 (captures/health-scenarios.ts: five runs). */
export const HEALTH_CAPTURE = 'captured-ai-sdk-7.0.173-health';

/**
 * A capture's OTLP/JSON request with every trace id replaced by a fresh one (the same id for the
 * spans of one trace), so that it can be sent again as new traces.
 */
export function freshCapture(name = HEALTH_CAPTURE): { body: string; traceIds: string[] } {
  const text = readFileSync(new URL(`${name}.otlp.json`, FIXTURES), 'utf8');
  const ids = new Map<string, string>();
  const body = text.replace(/"traceId": "([0-9a-f]{32})"/g, (_m, id: string) => {
    if (!ids.has(id)) ids.set(id, randomBytes(16).toString('hex'));
    return `"traceId": "${ids.get(id)!}"`;
  });
  return { body, traceIds: [...ids.values()] };
}

/**
 * `serve` as a newcomer starts it: no suite, no rule, no configuration (tool health on by
 * default), the memory driver unless `overrides` say otherwise; its evaluation spans collected.
 */
export async function serveDefaults(overrides: Record<string, unknown> = {}): Promise<{
  service: Service;
  origin: string;
  spans: EvaluationSpan[];
  lines: string[];
  send: (name?: string) => Promise<string[]>;
  close: () => Promise<void>;
}> {
  const config = await loadConfig({
    env: {},
    overrides: {
      'receiver.port': 0,
      'receiver.host': '127.0.0.1',
      'assembly.settleMs': 100,
      'export.logResults': false,
      ...overrides,
    },
  });
  const spans: EvaluationSpan[] = [];
  const lines: string[] = [];
  const service = await startService(
    config,
    { receiver: true, workers: true },
    {
      log: line => lines.push(line),
      exporter: {
        export: batch => {
          spans.push(...batch);
          return Promise.resolve();
        },
        shutdown: () => Promise.resolve(),
      },
    },
  );
  const origin = new URL(service.url!).origin;
  /** Sends a capture as new traces and waits until each has a run record; returns their ids. */
  const send = async (name?: string): Promise<string[]> => {
    const { body, traceIds } = freshCapture(name);
    const response = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (!response.ok) throw new Error(`send: HTTP ${response.status}`);
    await waitFor(
      async () => {
        for (const id of traceIds) {
          const record = (await (await fetch(`${origin}/api/v1/traces/${id}`)).json()) as {
            state?: string;
          };
          if (record.state !== 'scored' && record.state !== 'not_scored') return false;
        }
        return true;
      },
      'every trace of the capture scored',
      20_000,
    );
    return traceIds;
  };
  return { service, origin, spans, lines, send, close: () => service.close() };
}

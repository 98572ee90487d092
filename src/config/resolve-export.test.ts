import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { NOT_EXPORTED, resolveExport } from './resolve-export.js';

const target = async (
  env: Record<string, string>,
  overrides: Record<string, unknown> = {},
  role = { receiver: true },
) => resolveExport(await loadConfig({ env, overrides }), env, role);

describe('resolveExport', () => {
  it('does not export to its own receiver: nothing set and serve on 4318', async () => {
    const t = await target({});
    expect(t).toEqual({
      enabled: false,
      reason: `${NOT_EXPORTED} (http://localhost:4318/v1/traces is this service's own receiver)`,
    });
    expect(NOT_EXPORTED).toBe(
      'evaluation spans are not exported: set OTEL_EXPORTER_OTLP_ENDPOINT to write them into your tracing backend; results are at /ui/ and /api/v1',
    );
  });

  it('nor to an endpoint set to its own port on a loopback address', async () => {
    for (const url of [
      'http://127.0.0.1:9000/v1/traces',
      'http://[::1]:9000',
      'http://0.0.0.0:9000',
    ])
      expect(
        await target({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url }, { 'receiver.port': 9000 }),
      ).toMatchObject({ enabled: false });
  });

  it('exports to the OTLP default from a process on another port, or a worker', async () => {
    expect(await target({}, { 'receiver.port': 18444 })).toEqual({
      enabled: true,
      url: 'http://localhost:4318/v1/traces',
      explicit: false,
      source: 'the OTLP default: nothing set',
    });
    expect(await target({}, {}, { receiver: false })).toMatchObject({ enabled: true });
  });

  it('reads the standard variables, the traces one first, and export.url before both', async () => {
    expect(await target({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      enabled: true,
      url: 'http://collector:4318/v1/traces',
      explicit: true,
      source: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    });
    expect(
      await target({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces',
      }),
    ).toMatchObject({
      url: 'http://tempo:4318/v1/traces',
      source: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    });
    expect(
      await target(
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces' },
        { 'export.url': 'http://jaeger:4318/v1/traces' },
      ),
    ).toMatchObject({ url: 'http://jaeger:4318/v1/traces', source: 'export.url' });
  });

  it('is off on purpose with SPANSCORE_EXPORT=off, whatever the endpoint', async () => {
    const t = await target({
      SPANSCORE_EXPORT: 'off',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(t).toEqual({ enabled: false, reason: `${NOT_EXPORTED} (export.enabled is off)` });
  });
});

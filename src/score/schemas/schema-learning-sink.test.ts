import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../../ingest/decode-otlp-json.js';
import { otlpRequest } from '../../../test/helpers/otlp-json-builder.js';
import { serviceTraceSpans } from '../../../test/helpers/service-trace.js';
import { scoreTrace } from '../score-trace.js';
import { createMemorySchemaRegistry } from './memory-schema-registry.js';
import { createSchemaLearningSink } from './schema-learning-sink.js';
import { SCHEMA_REGISTRY_LIMITS, type SchemaRegistry } from './schema-registry.js';
import { schemaText } from './schema-text.js';
import { toolHealthPlan } from '../../../test/helpers/tool-health-plan.js';

const plan = toolHealthPlan();

/** A registry whose writes are counted, schemas and characters. */
function counted(): SchemaRegistry & {
  puts: number;
  schemas: number;
  chars: number;
  inner: ReturnType<typeof createMemorySchemaRegistry>;
} {
  const inner = createMemorySchemaRegistry();
  const out = {
    ...inner,
    inner,
    puts: 0,
    schemas: 0,
    chars: 0,
    put: (...args: Parameters<SchemaRegistry['put']>) => {
      out.puts++;
      out.schemas += args[2].length;
      out.chars += args[2].reduce((n, s) => n + s.text.length, 0);
      return inner.put(...args);
    },
  };
  return out;
}

async function scoreWith(
  sink: ReturnType<typeof createSchemaLearningSink>,
  options: Parameters<typeof serviceTraceSpans>[0],
) {
  const { traceId, spans } = serviceTraceSpans(options);
  return scoreTrace(traceId, decodeOtlpJson(otlpRequest(spans)).spans, plan, { sinks: [sink] });
}

const weather = { type: 'object', properties: { city: { type: 'string' } } };

describe('createSchemaLearningSink', () => {
  it("records the schemas a scored trace offered, for its service and version; not an unnamed service's", async () => {
    const registry = counted();
    const sink = createSchemaLearningSink(registry, { now: () => 1000 });
    const run = await scoreWith(sink, {
      service: 'travel',
      version: '3.1',
      offered: [{ name: 'getWeather', parameters: weather }, { name: 'no_schema' }],
      calls: [{ name: 'get_weather', args: { city: 'Oslo' } }],
    });
    const found = await registry.get('travel', '3.1', ['get_weather', 'no_schema'], 2000);
    expect([...found.keys()]).toEqual(['get_weather']);
    expect(found.get('get_weather')).toEqual({
      tool: 'get_weather',
      name: 'getWeather',
      text: JSON.stringify(weather),
      traceId: run.traceId,
      seenAtUnixMs: 1000,
    });
    await scoreWith(sink, {
      service: 'unknown_service',
      offered: [{ name: 'x', parameters: weather }],
      calls: [{ name: 'x', args: {} }],
    });
    expect(registry.puts).toBe(1);
  });

  it('writes the same schema of a slot again only after refreshMs; a changed one at once', async () => {
    const registry = counted();
    let clock = 0;
    const sink = createSchemaLearningSink(registry, { now: () => clock, refreshMs: 60_000 });
    const send = (parameters: unknown) =>
      scoreWith(sink, {
        service: 'travel',
        offered: [{ name: 'get_weather', parameters }],
        calls: [{ name: 'get_weather', args: { city: 'Oslo' } }],
      });
    for (let i = 0; i < 50; i++) {
      clock += 100;
      await send(weather);
    }
    expect(registry.puts).toBe(1);
    await send({ ...weather, required: ['city'] });
    expect(registry.puts).toBe(2);
    clock += 60_000;
    await send({ ...weather, required: ['city'] });
    expect(registry.puts).toBe(3);
  });

  it('answers at once, with no promise, a run that offers nothing to learn; awaits the write of one that does', async () => {
    const registry = counted();
    const sink = createSchemaLearningSink(registry, { now: () => 1000 });
    const runOf = (service: string) => {
      const { traceId, spans } = serviceTraceSpans({
        service,
        offered: [{ name: 'get_weather', parameters: weather }],
        calls: [{ name: 'get_weather', args: { city: 'Oslo' } }],
      });
      return scoreTrace(traceId, decodeOtlpJson(otlpRequest(spans)).spans, plan);
    };
    const unnamed = await runOf('unknown_service');
    expect(sink.write(unnamed)).toBeUndefined();
    expect(sink.write({ ...(await runOf('travel')), phase: 'llm' })).toBeUndefined();
    const learning = sink.write(await runOf('travel'));
    expect(typeof (learning as Promise<void> | undefined)?.then).toBe('function');
    await learning;
    expect(registry.puts).toBe(1);
  });

  it('keeps hostile offers within bounds: a thousand tools, huge and deeply nested schemas', async () => {
    const registry = counted();
    const sink = createSchemaLearningSink(registry);
    // As a sender writes it: JSON text, nested 3,000 deep (JSON.stringify of it would overflow).
    const deep = `${'{"type":"object","properties":{"a":'.repeat(3000)}{"type":"string"}${'}}'.repeat(3000)}`;
    const huge = { type: 'object', description: 'x'.repeat(40 * 1024) };
    const offered = [
      { name: 'deep', parameters: deep },
      { name: 'huge', parameters: huge },
      ...Array.from({ length: 1000 }, (_, i) => ({ name: `tool_${i}`, parameters: weather })),
    ];
    const run = await scoreWith(sink, {
      service: 'hostile',
      offered,
      calls: [{ name: 'tool_1', args: { city: 'x' } }],
    });
    expect(run.state).toBe('scored');
    expect(registry.schemas).toBeLessThanOrEqual(SCHEMA_REGISTRY_LIMITS.maxSchemasPerTrace);
    expect(registry.chars).toBeLessThanOrEqual(
      SCHEMA_REGISTRY_LIMITS.maxSchemasPerTrace * SCHEMA_REGISTRY_LIMITS.maxSchemaChars,
    );
    const kept = await registry.get('hostile', '', ['deep', 'huge', 'tool_0'], Date.now());
    expect([...kept.keys()]).toEqual(['tool_0']);
    expect(registry.inner.size().chars).toBeLessThanOrEqual(
      SCHEMA_REGISTRY_LIMITS.maxCharsPerService,
    );
  });
});

describe('schemaText', () => {
  it('measures before it serializes: no stack overflow, and each schema object measured once', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { not: deep };
    expect(schemaText(deep)).toBeUndefined();
    expect(schemaText('{"type":"object"}')).toBeUndefined();
    const schema = { type: 'object' };
    expect(schemaText(schema)).toBe('{"type":"object"}');
    expect(schemaText(schema)).toBe(schemaText(schema));
  });
});

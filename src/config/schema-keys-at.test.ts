import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { configSchema } from './config-schema.js';
import { schemaKeysAt } from './schema-keys-at.js';

describe('schemaKeysAt', () => {
  it('finds the keys at the top level, in a section, in a list item and in a map entry of the config', () => {
    expect(schemaKeysAt(configSchema, [])).toEqual(
      expect.arrayContaining(['toolHealth', 'receiver']),
    );
    expect(schemaKeysAt(configSchema, ['receiver'])).toEqual(
      expect.arrayContaining(['port', 'host', 'maxBodyBytes']),
    );
    expect(schemaKeysAt(configSchema, ['rules', 0])).toEqual(
      expect.arrayContaining(['name', 'match', 'sampleRate', 'scorers']),
    );
    expect(schemaKeysAt(configSchema, ['rules', 2, 'match'])).toEqual([
      'service',
      'rootSpanName',
      'attributes',
    ]);
    expect(schemaKeysAt(configSchema, ['judge', 'prices', 'gpt-4o'])).toEqual([
      'inputPerMillionTokens',
      'outputPerMillionTokens',
    ]);
  });

  it('goes through wrappers, pipes, lazy schemas and unions, and finds nothing where no object is', () => {
    const item = z.object({ id: z.string(), weight: z.number() }).strict();
    const schema = z.object({
      section: z
        .object({ items: z.array(item).default([]), next: z.lazy(() => item).optional() })
        .prefault({}),
      either: z.union([
        z.string(),
        z.object({ name: z.string() }),
        z.object({ label: z.string() }),
      ]),
      piped: z.object({ raw: z.string() }).pipe(z.transform(v => v)),
    });
    expect(schemaKeysAt(schema, ['section'])).toEqual(['items', 'next']);
    expect(schemaKeysAt(schema, ['section', 'items', 3])).toEqual(['id', 'weight']);
    expect(schemaKeysAt(schema, ['section', 'next'])).toEqual(['id', 'weight']);
    expect(schemaKeysAt(schema, ['either'])).toEqual(['name', 'label']);
    expect(schemaKeysAt(schema, ['piped'])).toEqual(['raw']);
    expect(schemaKeysAt(schema, ['section', 'items', 'id'])).toEqual([]);
    expect(schemaKeysAt(schema, ['missing'])).toEqual([]);
    expect(schemaKeysAt(schema, ['section', 'items', 0, 'id'])).toEqual([]);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGivenSchema } from '../score/schemas/given-schemas.js';
import { loadConfig } from './load-config.js';
import { loadToolSchemas } from './load-tool-schemas.js';

const dir = mkdtempSync(join(tmpdir(), 'spanscore-schemas-'));
const file = (name: string, content: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
};
const price = { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] };

describe('toolHealth.schemas', () => {
  it('reads an MCP tools/list result (saved whole or as its JSON-RPC response), a list of definitions, or one schema', async () => {
    const given = await loadToolSchemas([
      {
        service: 'shop',
        file: file('mcp.json', { tools: [{ name: 'getPrice', inputSchema: price }] }),
      },
      {
        service: 'shop',
        version: '2.0',
        file: file('rpc.json', {
          jsonrpc: '2.0',
          id: 1,
          result: { tools: [{ name: 'get_price', inputSchema: { ...price, title: 'v2' } }] },
        }),
      },
      {
        service: 'travel',
        file: file('openai.json', [
          { type: 'function', function: { name: 'search_flights', parameters: price } },
        ]),
      },
      { service: 'travel', file: file('book_flight.json', price) },
      { service: 'travel', file: file('x.json', price), tool: 'get_weather' },
    ]);
    expect(given.map(g => [g.service, g.version ?? null, [...g.tools.keys()]])).toEqual([
      ['shop', null, ['get_price']],
      ['shop', '2.0', ['get_price']],
      ['travel', null, ['search_flights']],
      ['travel', null, ['book_flight']],
      ['travel', null, ['get_weather']],
    ]);
    expect(findGivenSchema(given, 'shop', '2.0', 'get_price')?.schema).toMatchObject({
      title: 'v2',
    });
    expect(findGivenSchema(given, 'shop', '1.0', 'get_price')).toEqual({
      schema: price,
      source: { kind: 'config', file: given[0]!.file },
    });
  });

  it.each([
    [
      'a missing file',
      { file: join(dir, 'nope.json') },
      /toolHealth\.schemas\.0 \(.*nope\.json\): cannot read the file: ENOENT/,
    ],
    [
      'text that is not JSON',
      { file: file('bad.json', '{ "tools": [') },
      /bad\.json\): not JSON: /,
    ],
    [
      'a file over 1 MiB',
      { file: file('big.json', { tools: [], pad: 'x'.repeat(1024 * 1024) }) },
      /big\.json\): the file is \d+ bytes, more than 1048576 \(1 MiB\)/,
    ],
    [
      'a stray object',
      { file: file('stray.json', { hello: 'world' }) },
      /stray\.json\): expected an MCP tools\/list result/,
    ],
    [
      'a tool without a schema',
      { file: file('noschema.json', { tools: [{ name: 'a' }] }) },
      /noschema\.json\): tool "a": no JSON Schema \(inputSchema, parameters or input_schema\)/,
    ],
    [
      'an item that is no tool definition',
      { file: file('item.json', { tools: [{ inputSchema: price }] }) },
      /item\.json\): tools\.0: not a tool definition with a name/,
    ],
    [
      'a schema a check would refuse',
      { file: file('deep.json', `${'{"not":'.repeat(40)}{}${'}'.repeat(40)}`), tool: 'deep' },
      /deep\.json\): the schema of "deep": its schema nests deeper than 32 levels: a check would refuse it/,
    ],
    [
      'a tool listed twice',
      {
        file: file('twice.json', {
          tools: [
            { name: 'getPrice', inputSchema: price },
            { name: 'get_price', inputSchema: price },
          ],
        }),
      },
      /twice\.json\): tool "get_price": the file has tool "getPrice" already/,
    ],
    [
      '`tool` on a list',
      { file: file('named.json', { tools: [] }), tool: 'x' },
      /named\.json\): `tool` names the tool of a file of one JSON Schema; this file lists tools/,
    ],
    [
      'too many tools',
      {
        file: file('many.json', {
          tools: Array.from({ length: 501 }, (_, i) => ({ name: `t${i}`, inputSchema: {} })),
        }),
      },
      /many\.json\): it lists 501 tools, more than 500/,
    ],
  ])(
    'stops start-up on %s, naming the entry, the file and what was wrong',
    async (_what, entry, message) => {
      await expect(loadToolSchemas([{ service: 'shop', ...entry }])).rejects.toMatchObject({
        code: 'SS_USAGE',
        message: expect.stringMatching(message),
      });
    },
  );

  it('is read from the config file relative to it, learning is on by default, and SPANSCORE_LEARN_SCHEMAS sets it', async () => {
    const config = file(
      'spanscore.yaml',
      'toolHealth:\n  schemas:\n    - { service: shop, file: mcp.json }\n',
    );
    const loaded = await loadConfig({ file: config, env: {} });
    expect(loaded.toolHealth.schemas).toEqual([{ service: 'shop', file: join(dir, 'mcp.json') }]);
    expect(loaded.toolHealth.learnSchemas).toBe('on');
    const token = await loadConfig({ env: { SPANSCORE_LEARN_SCHEMAS: 'token' } });
    expect(token.toolHealth.learnSchemas).toBe('token');
    await expect(loadConfig({ env: { SPANSCORE_LEARN_SCHEMAS: 'sometimes' } })).rejects.toThrow(
      /SPANSCORE_LEARN_SCHEMAS/,
    );
  });
});

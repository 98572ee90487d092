import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { loadSuite } from '../../src/suite/load-suite.js';
import { docPages, markedBlocks, ROOT } from '../helpers/markdown-docs.js';

const schemaOf = async (name: string): Promise<object> =>
  JSON.parse(await readFile(join(ROOT, 'schema', name), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateSuite = ajv.compile(await schemaOf('suite.schema.json'));
const validateConfig = ajv.compile(await schemaOf('config.schema.json'));

/** The `$schema` a YAML file's first line declares, resolved from the file's folder. */
function declaredSchema(file: string, text: string): string | undefined {
  const match = /^# yaml-language-server: \$schema=(\S+)\n/.exec(text);
  return match ? resolve(dirname(file), match[1]!) : undefined;
}

async function yamlFiles(dir: string): Promise<string[]> {
  return (await readdir(join(ROOT, dir)))
    .filter(f => f.endsWith('.yaml'))
    .map(f => join(ROOT, dir, f));
}

describe('the JSON Schemas of suites and config files', () => {
  it('declare themselves in every suite and config file of the repo, and accept each one', async () => {
    const suites = await yamlFiles('config/suites');
    const configs = [join(ROOT, 'config/docker/spanscore.yaml')];
    expect(suites.length).toBeGreaterThanOrEqual(4);
    for (const [files, schema, validate] of [
      [suites, 'suite.schema.json', validateSuite],
      [configs, 'config.schema.json', validateConfig],
    ] as const) {
      for (const file of files) {
        const text = await readFile(file, 'utf8');
        expect(declaredSchema(file, text), file).toBe(join(ROOT, 'schema', schema));
        expect(validate(parse(text)), `${file}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      }
    }
  });

  it('accept every suite the docs show, which loadSuite loads too', async () => {
    const blocks = docPages().flatMap(p =>
      markedBlocks(p, /^<!-- (suite|guide: save \S+\.ya?ml) -->$/),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    const dir = await mkdtemp(join(tmpdir(), 'spanscore-doc-suite-'));
    try {
      for (const block of blocks) {
        expect(validateSuite(parse(block.code)), block.where).toBe(true);
        const file = join(dir, 'suite.yaml');
        await writeFile(file, block.code);
        const suite = await loadSuite(file);
        expect(suite.cases.length, block.where).toBe(
          (parse(block.code) as { testCases: unknown[] }).testCases.length,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('agree with loadSuite: what one accepts the other accepts', () => {
    let dir: string;
    beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), 'spanscore-schema-'))));
    afterAll(() => rm(dir, { recursive: true, force: true }));

    const cases: Array<[string, unknown, boolean]> = [
      ['a minimal suite', { scorers: ['tool_correctness'], testCases: [{ id: 'a' }] }, true],
      ['scorers on each case only', { testCases: [{ id: 'a', scorers: ['contains'] }] }, true],
      ['no scorers anywhere', { testCases: [{ id: 'a' }] }, false],
      [
        'a case without scorers where the suite has none',
        { scorers: [], testCases: [{ id: 'a', scorers: ['contains'] }, { id: 'b' }] },
        false,
      ],
      [
        "an empty list of a case's own scorers",
        { scorers: ['contains'], testCases: [{ id: 'a', scorers: [] }] },
        false,
      ],
      ['a numeric id', { scorers: ['contains'], testCases: [{ id: 7, groundTruth: 'x' }] }, true],
      [
        'every field',
        {
          $schema: '../schema/suite.schema.json',
          name: 'n',
          description: 'd',
          aliases: { a: 'b' },
          testCaseIdAttributes: ['session.id'],
          scorers: ['tool_correctness', { name: 'tool_trajectory', match: 'in_order' }],
          testCases: [
            {
              id: 'c',
              input: 'hi',
              expectedTool: 'weather',
              expectedToolOrder: ['weather'],
              strictMode: true,
              expectedTools: ['weather'],
              expectedCalls: ['weather', { name: 'log', optional: true, args: { a: 1 } }],
              groundTruth: 'sunny',
              availableTools: [{ name: 'weather', description: 'w' }],
              scorers: ['contains'],
              metadata: { owner: 'x' },
            },
          ],
        },
        true,
      ],
      ['no test cases', { name: 'n' }, false],
      ['an empty list of test cases', { testCases: [] }, false],
      ['an unknown top-level field', { testCases: [{ id: 'a' }], tests: [] }, false],
      ['an unknown test case field', { testCases: [{ id: 'a', expected: ['x'] }] }, false],
      ['a test case without id', { testCases: [{ expectedTools: ['x'] }] }, false],
      ['an empty id', { testCases: [{ id: '' }] }, false],
      ['expectedTools as a string', { testCases: [{ id: 'a', expectedTools: 'x' }] }, false],
      [
        'an expected call with an unknown field',
        { testCases: [{ id: 'a', expectedCalls: [{ name: 'x', arguments: {} }] }] },
        false,
      ],
      [
        'a scorer object without a name',
        { scorers: [{ threshold: 1 }], testCases: [{ id: 'a' }] },
        false,
      ],
      ['strictMode as a string', { testCases: [{ id: 'a', strictMode: 'yes' }] }, false],
      [
        'an empty testCaseIdAttributes',
        { testCaseIdAttributes: [], testCases: [{ id: 'a' }] },
        false,
      ],
    ];

    it.each(cases)('%s', async (_, suite, valid) => {
      expect(validateSuite(suite), ajv.errorsText(validateSuite.errors)).toBe(valid);
      const file = join(dir, `${Math.random().toString(36).slice(2)}.json`);
      await writeFile(file, JSON.stringify(suite));
      const loaded = await loadSuite(file).then(
        () => true,
        (error: { code?: string }) => {
          expect(error.code).toBe('SS_SUITE_INVALID');
          return false;
        },
      );
      expect(loaded).toBe(valid);
    });
  });

  it('leave to loadSuite only the four checks the docs name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spanscore-schema-limits-'));
    try {
      for (const [suite, message] of [
        [
          { scorers: ['contains'], testCases: [{ id: 'a' }, { id: 'a' }] },
          'duplicate test case id',
        ],
        [{ scorers: ['no_such_scorer'], testCases: [{ id: 'a' }] }, 'unknown scorer'],
        [
          { scorers: [{ name: 'tool_trajectory', match: 'sideways' }], testCases: [{ id: 'a' }] },
          'scorer tool_trajectory',
        ],
        [
          { customScorers: ['./missing.ts'], scorers: ['x'], testCases: [{ id: 'a' }] },
          'missing.ts',
        ],
      ] as const) {
        expect(validateSuite(suite), JSON.stringify(suite)).toBe(true);
        const file = join(dir, 'suite.json');
        await writeFile(file, JSON.stringify(suite));
        await expect(loadSuite(file)).rejects.toThrow(message);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('accept a config that loadConfig accepts and refuse one it refuses', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spanscore-config-schema-'));
    try {
      for (const [config, valid] of [
        [{ receiver: { port: 4318 }, results: { readTokens: ['t'] } }, true],
        [{ $schema: 'x', export: { enabled: false, protocol: 'http/json' } }, true],
        [{ receiver: { prot: 1 } }, false],
        [{ export: { protocol: 'grpc' } }, false],
        [{ queue: { shards: 0 } }, false],
      ] as const) {
        expect(validateConfig(config), JSON.stringify(config)).toBe(valid);
        const file = join(dir, 'config.json');
        await writeFile(file, JSON.stringify(config));
        const loaded = await loadConfig({ file, env: {} }).then(
          () => true,
          () => false,
        );
        expect(loaded, JSON.stringify(config)).toBe(valid);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

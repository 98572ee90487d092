import { z } from 'zod';
import { configSchema } from '../src/config/config-schema.js';
import {
  CONFIG_ENV,
  LIST_VARIABLES,
  SWITCH_VARIABLES,
  UNPREFIXED_VARIABLES,
} from '../src/config/load-config.js';
import { suiteSchema } from '../src/suite/suite-schema.js';

/**
 * Variables spanscore reads that fill no config field, and what each does. A variable the code
 * reads that is neither here nor in `CONFIG_ENV` fails `test/docs/configuration-page.test.ts`.
 */
export const OTHER_VARIABLES: Readonly<Record<string, string>> = {
  SPANSCORE_HEAP_BOUNDED_MB:
    'Internal: set by `serve` in the environment of the thread it runs its service in with a bounded heap (`queue.memoryHeapMb`), to the bound in MB, so that the service knows it is the bounded one. Do not set it yourself.',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'Base URL of the OTLP/HTTP endpoint evaluation spans (`/v1/traces`) and result logs (`/v1/logs`) go to, when `export.url` / `export.logsUrl` are not set. With none of these set and `serve` on port 4318, nothing is exported (it would be spanscore itself).',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:
    'The full traces URL; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT:
    'The full logs URL of `export.logs`; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
  OTEL_EXPORTER_OTLP_HEADERS:
    'Headers of export requests, `key=value,…` (read by the OpenTelemetry exporter; `OTEL_EXPORTER_OTLP_TRACES_HEADERS` too).',
  OTEL_EXPORTER_OTLP_PROTOCOL:
    '`http/protobuf` (default) or `http/json`, when `export.protocol` is not set.',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL:
    'The same for traces only; wins over `OTEL_EXPORTER_OTLP_PROTOCOL`.',
  OPENAI_BASE_URL:
    "The LLM judge's OpenAI-compatible endpoint when `judge.baseUrl` is not set (read by the `openai` client).",
  OPENAI_API_KEY: "The LLM judge's key when `judge.apiKey` is not set.",
  OPENAI_ORG_ID:
    "The OpenAI organization the judge's requests are made for (the `openai` client's header).",
  OPENAI_PROJECT_ID:
    "The OpenAI project the judge's requests are made for (the `openai` client's header).",
  NO_COLOR: "Any value: no colours in the CLI's output.",
  NODE_DISABLE_COMPILE_CACHE:
    "`1`: the CLI does not keep compiled code between starts. On Node 22.8 and later it does, in `node-compile-cache` under the system's temporary folder (or where `NODE_COMPILE_CACHE` says), and starts faster.",
  FORCE_COLOR: "Colours in the CLI's output even when it is not a terminal (`0` or `false`: none).",
};

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
}

/** The JSON Schema of config files (YAML or JSON), as shipped in `schema/config.schema.json`. */
export function configJsonSchema(): object {
  return jsonSchema(configSchema, 'spanscore configuration', 'config.schema.json');
}

/**
 * The JSON Schema of suite files (YAML or JSON), as shipped in `schema/suite.schema.json`: zod's
 * output, plus the one rule `loadSuite` checks across fields that JSON Schema can say (every test
 * case has scorers: the suite's or its own). What it cannot say, `loadSuite` still checks: unique
 * test case ids, scorer names and their options, custom scorer modules.
 */
export function suiteJsonSchema(): object {
  return {
    ...jsonSchema(suiteSchema, 'spanscore suite', 'suite.schema.json'),
    anyOf: [
      { required: ['scorers'], properties: { scorers: { minItems: 1 } } },
      { properties: { testCases: { items: { required: ['scorers'] } } } },
    ],
  };
}

function jsonSchema(schema: z.ZodType, title: string, file: string): object {
  // `input`: what a file may hold (defaults optional, `id: 3` as well as `id: "3"`).
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return {
    ...generated,
    $id: `https://unpkg.com/spanscore/schema/${file}`,
    title,
  };
}

/** One row of the reference: a field that holds a value (sections are headings, not rows). */
interface Row {
  path: string;
  type: string;
  default: string;
  meaning: string;
}

/**
 * The Markdown of `docs/configuration.md`: every config field with its variable, type, default
 * and meaning (its `.describe()` text), by section, then the other variables spanscore reads.
 * Pure: `scripts/write-docs.ts` writes it, and a test compares it with the committed page.
 */
export function configReference(): string {
  const root = configJsonSchema() as JsonSchema;
  const variables = new Map<string, string>();
  for (const [name, path] of Object.entries(CONFIG_ENV)) {
    const alias = UNPREFIXED_VARIABLES[name];
    let shown = alias ? `\`${name}\`, \`${alias}\`` : `\`${name}\``;
    if (LIST_VARIABLES.has(name)) shown += ' (comma-separated)';
    if (SWITCH_VARIABLES.has(name)) shown += ' (`on`/`off`)';
    variables.set(path.join('.'), shown);
  }

  const sections: Array<{ name: string; description?: string; rows: Row[] }> = [];
  const topLevel: Row[] = [];
  for (const [key, field] of Object.entries(root.properties ?? {})) {
    if (key === '$schema') continue;
    if (field.type === 'object' && field.properties) {
      const rows: Row[] = [];
      collect(field, key, rows);
      sections.push({
        name: key,
        ...(field.description && { description: field.description }),
        rows,
      });
    } else topLevel.push(row(key, field));
  }

  const table = (rows: Row[]): string[] => [
    '| setting | variable | type | default | meaning |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      r =>
        `| \`${r.path}\` | ${variables.get(r.path) ?? ''} | ${r.type} | ${r.default} | ${cell(r.meaning)} |`,
    ),
  ];

  const lines = [
    '<!-- Generated by `npm run docs:config` from src/config/config-schema.ts and src/config/load-config.ts: edit the `.describe()` texts there, not this page. -->',
    '',
    '# Configuration reference',
    '',
    'Every setting of `spanscore serve` and `spanscore worker`: its field in a config file, its',
    'environment variable, its type, its default and what it does. For what to set when, read',
    '[service.md](service.md) and [operations.md](operations.md).',
    '',
    'Settings come from three places, later ones winning: a config file (`--config FILE`, YAML or',
    'JSON), environment variables, then command-line options (`--port`, `--suite`, …). They are',
    'validated once, at start-up: an error names the file or variable, the field and what was',
    'expected, and the process exits with code 2. A config file may start with',
    'a `# yaml-language-server: $schema=` line (or a `"$schema"` key in JSON) naming the schema',
    'shipped in the package, by a path relative to the file (in a project that installed spanscore,',
    'from its root: `node_modules/spanscore/schema/config.schema.json`), so that editors complete',
    'and check it.',
    '',
    '```yaml',
    '# yaml-language-server: $schema=node_modules/spanscore/schema/config.schema.json',
    'queue: { redisUrl: redis://127.0.0.1:6379 }',
    'suites: [suites/weather-agent.yaml]',
    'results: { readTokens: [change-me] }',
    '```',
    '',
    '## Top level',
    '',
    ...table(topLevel),
  ];
  for (const section of sections) {
    lines.push('', `## \`${section.name}\``, '');
    if (section.description) lines.push(section.description, '');
    lines.push(...table(section.rows));
  }
  lines.push(
    '',
    '## Other environment variables',
    '',
    'Read by spanscore, or by the OpenTelemetry and OpenAI clients it uses, and not a field above.',
    '',
    '| variable | meaning |',
    '| --- | --- |',
    ...Object.entries(OTHER_VARIABLES).map(
      ([name, meaning]) => `| \`${name}\` | ${cell(meaning)} |`,
    ),
    '',
  );
  return lines.join('\n');
}

function collect(section: JsonSchema, prefix: string, rows: Row[]): void {
  for (const [key, field] of Object.entries(section.properties ?? {})) {
    const path = `${prefix}.${key}`;
    if (field.type === 'object' && field.properties) collect(field, path, rows);
    else rows.push(row(path, field));
  }
}

function row(path: string, field: JsonSchema): Row {
  return {
    path,
    type: typeName(field),
    default: field.default === undefined ? '' : `\`${JSON.stringify(field.default)}\``,
    meaning: field.description ?? '',
  };
}

function typeName(field: JsonSchema): string {
  if (field.enum) return field.enum.map(v => `\`${String(v)}\``).join(' \\| ');
  if (field.anyOf) return field.anyOf.map(typeName).join(' \\| ');
  if (field.type === 'array') return `list of ${field.items ? typeName(field.items) : 'values'}`;
  if (field.type === 'object') {
    const values = field.additionalProperties;
    return typeof values === 'object' ? `map of ${typeName(values)}` : 'object';
  }
  if (field.type === 'string' && field.format === 'uri') return 'URL';
  return field.type ?? 'any';
}

/** A table cell: pipes escaped, on one line. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/**
 * Architecture rules, checked by `npm run lint` (dependency-cruiser): no import cycles anywhere
 * in `src/`, and the pure core (`normalize`, `score`, `decide`, `record`) imports no I/O library, so it runs the same
 * in the offline CLI, the memory driver, a BullMQ worker and a vitest test. The shape is
 * dependency-cruiser's `IConfiguration`.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle, type-only imports included: move the shared piece down a layer.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'pure-core-no-io',
      severity: 'error',
      comment:
        'normalize/, score/, decide/ and record/ are pure: Redis, BullMQ, HTTP servers, the OpenAI client, exporters and files belong at the edges (queue/, ingest/, judge/, emit/, server/, cli/).',
      from: { path: '^src/(normalize|score|decide|record)/', pathNot: '\\.test\\.ts$' },
      to: {
        path: [
          '(^|/)node_modules/(ioredis|bullmq|fastify|openai|@fastify/[^/]+|@opentelemetry/exporter-[^/]+)/',
          '^(node:)?(http|https|http2|net|fs|fs/promises|child_process)$',
        ],
      },
    },
    {
      name: 'no-dev-dependency-at-runtime',
      severity: 'error',
      comment:
        'src/ ships in the package: a devDependency is not installed for users. Make it a dependency (or an optional peer, as vitest is for spanscore/vitest).',
      from: { path: '^src/', pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm-peer'], dynamic: false },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};

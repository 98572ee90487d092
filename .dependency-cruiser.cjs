/**
 * Architecture rules, checked by `npm run lint` (dependency-cruiser): no import cycles anywhere
 * in `src/`, and the pure core (`normalize`, `score`, `decide`, `record`) imports no I/O library, so it runs the same
 * in the offline CLI, the memory driver, a BullMQ worker and a vitest test. Redis code sits in
 * `redis/`, below the stages that use it, and no stage imports another stage's I/O files; `protobuf/`
 * and `config/` sit below the stages too. The shape is dependency-cruiser's `IConfiguration`.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle, type-only imports included: move the shared piece down a layer.',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
    },
    {
      // One cycle is the design: run from source, the loader of custom scorers
      // (suite/load-custom-scorers.ts) imports the package entry (src/index.ts), which holds the
      // loader, when a scorer loads, to hand the scorer the running package: after every module
      // has loaded, so the cycle leaves no import undefined. A cycle through a dynamic import is
      // allowed only when it passes through both of them (this rule and the next); one that does
      // and has a dynamic import elsewhere too passes unseen, as dependency-cruiser matches a
      // cycle's modules and its kinds of import apart.
      name: 'no-circular-dynamic',
      severity: 'error',
      comment:
        'An import cycle through a dynamic import that does not pass through the loader of custom scorers (suite/load-custom-scorers.ts): move the shared piece down a layer.',
      from: { path: '^src/' },
      to: {
        circular: true,
        via: { dependencyTypes: ['dynamic-import'] },
        viaOnly: { pathNot: '^src/suite/load-custom-scorers\\.ts$' },
      },
    },
    {
      name: 'no-circular-dynamic-but-the-entry',
      severity: 'error',
      comment:
        'An import cycle through a dynamic import that does not pass through the package entry (src/index.ts): only the loader of custom scorers may close one, by importing the entry.',
      from: { path: '^src/' },
      to: {
        circular: true,
        via: { dependencyTypes: ['dynamic-import'] },
        viaOnly: { pathNot: '^src/index\\.ts$' },
      },
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
      name: 'redis-in-one-place',
      severity: 'error',
      comment:
        'Redis code (connections, key naming, Lua scripts, every Redis adapter) lives in redis/: elsewhere, take a RedisClient or an adapter from there. BullMQ, which brings its own Redis use, stays in queue/.',
      from: { path: '^src/', pathNot: ['^src/redis/', '\\.test\\.ts$'] },
      to: { path: '(^|/)node_modules/ioredis/' },
    },
    {
      name: 'redis-below-the-stages',
      severity: 'error',
      comment:
        'redis/ sits below the stages that use it: it may implement their interfaces (emit, score, results) and read what ingest and normalize give, never import the drivers, the server, the CLI or the page.',
      from: { path: '^src/redis/' },
      to: { path: '^src/(queue|server|cli|ui|config|judge|capture|vitest)/' },
    },
    {
      name: 'no-stage-imports-another-stages-io',
      severity: 'error',
      comment:
        "A stage's I/O files (BullMQ processors and drivers, the OTLP receiver and exporters, the judge's client) are its own: another stage reaches them only through the server or CLI, which wire the stages together.",
      from: {
        path: '^src/(normalize|score|decide|record|results|emit|ingest|redis)/',
        pathNot: '\\.test\\.ts$',
      },
      to: {
        pathNot: '^src/$1/',
        path: [
          '^src/queue/(bullmq-|memory-|score-trace|judge)[^/]*\\.ts$',
          '^src/ingest/otlp-http-receiver\\.ts$',
          '^src/emit/otlp-evaluation-exporter\\.ts$',
          '^src/judge/',
        ],
      },
    },
    {
      name: 'protobuf-below-the-stages',
      severity: 'error',
      comment:
        "protobuf/ (the wire format's reader and writer pieces) sits below ingest/, emit/ and redis/, which use it: a type it shares with them (AttributeValue) is defined in it, never imported up from a stage, type-only imports included.",
      from: { path: '^src/protobuf/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: '^src/protobuf/' },
    },
    {
      name: 'config-below-the-stages',
      severity: 'error',
      comment:
        "config/ (the settings' schema and their defaults) sits below the stages that read its types (judge/, queue/, results/, suite/, the server and CLI): a default or type it shares with a stage (the judge's, the decode limits) is defined in config/, never imported up from ingest/, judge/ or another stage, type-only imports included. It may read the pure core (normalize/, score/), which imports no config.",
      from: { path: '^src/config/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(config|errors|semconv|normalize|score)/' },
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

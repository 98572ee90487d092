import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The page's files: `ui/` at the package root (its script as native ES modules in `ui/js/`, no
 * build step), plus uPlot from its package.
 */
const ASSETS: Record<string, { type: string; from: () => string }> = {
  'index.html': { type: 'text/html; charset=utf-8', from: () => packageFile('ui/index.html') },
  'app.css': { type: 'text/css; charset=utf-8', from: () => packageFile('ui/app.css') },
  ...Object.fromEntries(
    [
      'api',
      'compare',
      'dom',
      'failures',
      'main',
      'overview',
      'refused',
      'schema-source',
      'session-view',
      'tools',
      'trace-view',
      'traces',
    ].map(name => [
      `js/${name}.js`,
      { type: 'text/javascript; charset=utf-8', from: () => packageFile(`ui/js/${name}.js`) },
    ]),
  ),
  'uplot.min.js': {
    type: 'text/javascript; charset=utf-8',
    from: () => require.resolve('uplot/dist/uPlot.iife.min.js'),
  },
  'uplot.min.css': {
    type: 'text/css; charset=utf-8',
    from: () => require.resolve('uplot/dist/uPlot.min.css'),
  },
};

const require = createRequire(import.meta.url);

// src/ui/ and dist/ui/ are both two levels below the package root.
function packageFile(path: string): string {
  return new URL(`../../${path}`, import.meta.url).pathname;
}

/**
 * Serves the results page at `/ui/`: static files read once at start-up, from the package (no
 * CDN: it works offline). The page holds no data; it reads `/api/v1` (with the bearer token the
 * user gives it, when one is configured). Total size: see docs/results-and-dashboards.md.
 */
export function registerResultsPage(app: FastifyInstance): void {
  const files = new Map(
    Object.entries(ASSETS).map(([name, { type, from }]) => [
      name,
      { type, body: readFileSync(from()) },
    ]),
  );
  app.get('/ui', (_request, reply) => reply.redirect('/ui/'));
  app.get('/ui/', (_request, reply) => send(reply, files.get('index.html')!));
  app.get('/ui/*', (request, reply) => {
    const file = files.get((request.params as { '*': string })['*']);
    if (!file) return reply.code(404).type('text/plain').send('not found');
    return send(reply, file);
  });
}

function send(reply: FastifyReply, file: { type: string; body: Buffer }): FastifyReply {
  return reply.header('cache-control', 'no-cache').type(file.type).send(file.body);
}

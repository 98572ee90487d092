import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Grafana itself has no package reachable here; its dashboard schema does: @grafana/schema's
// types, generated from Grafana's CUE schema. The dashboard JSON is typechecked against them.
const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const SCHEMA_TYPES = join(ROOT, 'node_modules/@grafana/schema/dist/types/index.d.ts');

let dir: string;
let dashboard: Record<string, unknown> & {
  panels: Array<{
    id: number;
    type: string;
    gridPos: { x: number; w: number };
    datasource?: { uid: string };
    targets?: Array<Record<string, unknown>>;
  }>;
  templating: { list: Array<{ name: string }> };
};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spanscore-dashboard-'));
  dashboard = JSON.parse(
    await readFile(join(ROOT, 'config/grafana/dashboards/spanscore.json'), 'utf8'),
  ) as typeof dashboard;
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        skipLibCheck: true,
        types: [],
        paths: { '@grafana/schema': [SCHEMA_TYPES] },
      },
      files: ['check.ts'],
    }),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Typechecks `json` against the Dashboard type of grafana/schema; returns tsc's exit code and output.
async function typecheck(json: unknown): Promise<{ code: number; output: string }> {
  await writeFile(
    join(dir, 'check.ts'),
    `import type { Dashboard } from '@grafana/schema';\nexport const dashboard = ${JSON.stringify(json, null, 2)} satisfies Dashboard;\n`,
  );
  return run(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')]).then(
    () => ({ code: 0, output: '' }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, output: e.stdout ?? '' }),
  );
}

describe('the Grafana dashboard', () => {
  it('matches Grafana’s dashboard schema (@grafana/schema)', async () => {
    expect(await typecheck(dashboard)).toEqual({ code: 0, output: '' });
  }, 60_000);

  it('the schema check fails on a dashboard Grafana would not read', async () => {
    const broken = { ...dashboard, panels: [{ ...dashboard.panels[1], gridPos: 'top left' }] };
    const { code, output } = await typecheck(broken);
    expect(code).not.toBe(0);
    expect(output).toContain("Type 'string' is not assignable to type 'GridPos'");
  }, 60_000);

  it('has unique panel ids, fits 24 columns, and uses only variables and data sources it has', async () => {
    const ids = dashboard.panels.map(p => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
    const defined = new Set([
      ...dashboard.templating.list.map(v => v.name),
      '__rate_interval',
      '__range',
      '__interval',
    ]);
    const used = [...JSON.stringify(dashboard.panels).matchAll(/\$\{?(\w+)/g)].map(m => m[1]!);
    expect(used.filter(v => !defined.has(v))).toEqual([]);
    const provisioned = parse(
      await readFile(join(ROOT, 'config/grafana/provisioning/datasources/datasources.yml'), 'utf8'),
    ) as { datasources: Array<{ uid: string; type: string }> };
    const uids = new Set(provisioned.datasources.map(d => d.uid));
    const fixed = dashboard.panels
      .map(p => p.datasource?.uid)
      .filter((u): u is string => u !== undefined && !u.startsWith('$'));
    for (const uid of fixed) expect(uids).toContain(uid);
    // The failing-traces panel is a TraceQL search on evaluation spans labelled fail.
    const traceql = dashboard.panels
      .flatMap(p => p.targets ?? [])
      .find(t => t.queryType === 'traceql');
    expect(traceql?.query).toBe('{ span.gen_ai.evaluation.score.label = "fail" }');
  });
});

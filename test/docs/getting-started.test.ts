import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { docPages, markedBlocks, ROOT, walk } from '../helpers/markdown-docs.js';

const exec = promisify(execFile);
const page = docPages().find(p => p.file === 'docs/getting-started.md')!;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/**
 * docs/getting-started.md, followed as written: its suite, `spanscore serve` with it, and its
 * agent code (the Vercel AI SDK with the OpenTelemetry SDK, unchanged but for the model: the AI
 * SDK's mock model, scripted to call `weather`, stands in for a provider), then its API call.
 */
describe('docs/getting-started.md', () => {
  it('takes a reader from the suite to a passing score of a Vercel AI SDK agent', async () => {
    const [suiteBlock] = markedBlocks(page, /^<!-- suite -->$/);
    const agentCode = [...walk(page.tree)]
      .map(({ node }) => node)
      .find(node => node.type === 'code' && node.lang === 'ts');
    expect(suiteBlock).toBeDefined();
    expect(agentCode?.type).toBe('code');
    if (agentCode?.type !== 'code') return;

    // The project folder sits in the repository, so the agent resolves `ai` and the OTel SDK
    // from its node_modules, as a reader's project resolves its own.
    const dir = await mkdtemp(join(ROOT, '.getting-started-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'my-suite.yaml'), suiteBlock!.code);

    // Its own port, not 4318, so no export is tried: as on 4318 with nothing set, where the
    // export would reach spanscore itself and is left off.
    const serve = startCli(['serve', '--suite', join(dir, 'my-suite.yaml'), '--port', '0'], {
      SPANSCORE_EXPORT: 'off',
      OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
    });
    cleanups.push(async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
    });
    const origin = await listening(serve);

    const model = /^ {2}model, \/\/ .*$/m;
    expect(agentCode.value).toMatch(model);
    expect(agentCode.value).toContain("url: 'http://localhost:4318/v1/traces'");
    const agent = [
      `import { weatherMockModel } from ${JSON.stringify(join(ROOT, 'test/helpers/weather-mock-model.ts'))};`,
      agentCode.value
        .replace(model, "  model: weatherMockModel('call_getting_started'),")
        .replace('http://localhost:4318', origin),
    ].join('\n');
    await writeFile(join(dir, 'agent.ts'), agent);
    await exec(process.execPath, ['--import', 'tsx', join(dir, 'agent.ts')], { cwd: dir });

    // "About two seconds after the run's last span, the trace is scored."
    let results: Array<{ testCaseId: string; scorer: string; label: string }> = [];
    for (let i = 0; i < 200 && results.length < 2; i++) {
      await new Promise(r => setTimeout(r, 50));
      const body = (await (await fetch(`${origin}/api/v1/results`)).json()) as {
        results: typeof results;
      };
      results = body.results;
    }
    expect(
      results
        .map(r => [r.testCaseId, r.scorer, r.label])
        .sort((a, b) => a[1]!.localeCompare(b[1]!)),
    ).toEqual([
      ['weather-paris', 'tool_call_accuracy', 'pass'],
      ['weather-paris', 'tool_correctness', 'pass'],
    ]);
    // The start-up lines the page tells the reader to expect.
    expect(serve.stderr()).toMatch(/memory/);
    expect(serve.stderr()).toContain('evaluation spans are not exported');
  }, 60_000);
});

async function listening(serve: CliProcess): Promise<string> {
  const [, origin] = await serve.waitForLine(/listening on (http:\/\/\S+?)\/v1\/traces/);
  return origin!.replace('0.0.0.0', '127.0.0.1');
}

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { forgetCallSourceTexts } from '../normalize/content-attribute.js';
import { isDefinedScorer, isScorer } from '../score/define-scorer.js';
import type { Scorer } from '../score/scorer.js';

/**
 * Loads custom scorer modules (`.js`, `.mjs`, `.ts`, `.mts`; TypeScript is transpiled on the
 * fly by jiti) and returns every scorer they export: the default export (a scorer or an array of
 * scorers) and named exports that are scorers.
 */
export async function loadCustomScorers(
  modules: readonly string[],
  baseDir: string,
  suiteFile: string,
): Promise<Scorer[]> {
  if (modules.length === 0) return [];
  // jiti (a TypeScript loader) is loaded only for a suite that names custom scorers.
  const { createJiti } = await import('jiti');
  const jiti = createJiti(import.meta.url, {
    moduleCache: false,
    alias: { spanscore: await scorerSpanscore() },
  });
  const out: Scorer[] = [];
  for (const [i, modulePath] of modules.entries()) {
    const location = { file: suiteFile, path: `customScorers[${i}]` };
    const file = resolve(baseDir, modulePath);
    if (!existsSync(file)) {
      throw new SpanscoreError('SS_CUSTOM_SCORER_INVALID', `module ${file} does not exist`, {
        location,
      });
    }
    let mod: Record<string, unknown>;
    try {
      mod = await jiti.import<Record<string, unknown>>(file);
    } catch (error) {
      throw new SpanscoreError(
        'SS_CUSTOM_SCORER_INVALID',
        `cannot load ${file}: ${(error as Error).message}`,
        { location, cause: error },
      );
    }
    const found = new Set<Scorer>();
    for (const value of Object.values(mod)) {
      for (const candidate of Array.isArray(value) ? value : [value])
        if (isScorer(candidate)) found.add(candidate);
    }
    if (found.size === 0) {
      throw new SpanscoreError(
        'SS_CUSTOM_SCORER_INVALID',
        `${file} exports no scorer; export the result of defineScorer()`,
        { location },
      );
    }
    // Wrapped once each: a scorer exported twice (by default and by name) is one scorer.
    for (const scorer of found) out.push(handsOverCalls(scorer));
  }
  return out;
}

/**
 * A scorer of the scorer shape made without `defineScorer` (which does this itself), whose calls'
 * values are forgotten as texts before it runs (see `forgetCallSourceTexts`): it may change them.
 * One from `defineScorer` as it is.
 */
function handsOverCalls(scorer: Scorer): Scorer {
  if (isDefinedScorer(scorer)) return scorer;
  // Everything else read from the scorer itself, its prototype's methods too (a class instance).
  const wrapped = Object.create(scorer) as Scorer;
  wrapped.score = input => {
    forgetCallSourceTexts(input.trace.toolSequence);
    return scorer.score(input);
  };
  return wrapped;
}

/** The key of the registry `running-spanscore.cts` reads (the same string there). */
const RUNNING_EXPORTS = Symbol.for('spanscore.runningExports');

/**
 * What a scorer module's `spanscore` is aliased to, so that it imports the running copy wherever
 * it lives, with no install or build step:
 * - built (`dist/index.js` beside this file): the entry point itself, which jiti imports with
 *   Node's own `import`, so the scorer gets the module already loaded, its exports as they are;
 * - run from source (tests, the bench): `running-spanscore.cts`, whose `module.exports` is this
 *   copy's namespace, registered here under that file's path. Aliased to `src/index.ts`, jiti
 *   compiled and ran all of `src/` again on every load (4–20 s on this host), a second copy whose
 *   functions were not the running ones.
 */
async function scorerSpanscore(): Promise<string> {
  const built = fileURLToPath(new URL('../index.js', import.meta.url));
  if (existsSync(built)) return built;
  const shim = fileURLToPath(new URL('./running-spanscore.cts', import.meta.url));
  const registry = ((globalThis as { [RUNNING_EXPORTS]?: Map<string, object> })[RUNNING_EXPORTS] ??=
    new Map());
  registry.set(shim, await import('../index.js'));
  return shim;
}

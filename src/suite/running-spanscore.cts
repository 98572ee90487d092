/**
 * What a custom scorer module gets for `import … from 'spanscore'` when spanscore runs from source
 * (tests, the bench): the exports of the spanscore that is loading it, not a second copy of it.
 * `loadCustomScorers` aliases `spanscore` to this file (jiti's `alias`) and registers its own
 * namespace under this file's path first; the built package aliases its entry point instead, and
 * does not ship this file (tsconfig.build.json).
 *
 * Contract: a CommonJS module, which jiti compiles, whose `module.exports` is the registered
 * namespace itself, so a scorer's named, default and namespace imports read its exports as they
 * are. Loaded without a registration (imported directly), it throws and says so.
 */
// The same key as `RUNNING_EXPORTS` in load-custom-scorers.ts, which registers the exports.
const RUNNING_EXPORTS = Symbol.for('spanscore.runningExports');

const registry = (globalThis as { [RUNNING_EXPORTS]?: Map<string, object> })[RUNNING_EXPORTS];
const running = registry?.get(__filename);
if (!running)
  throw new Error(
    `${__filename} stands in for 'spanscore' while a suite's custom scorers load, and nothing registered it here: import 'spanscore' instead`,
  );

export = running;

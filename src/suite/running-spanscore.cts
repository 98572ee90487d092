/**
 * What a custom scorer module gets for `import … from 'spanscore'`: the exports of the spanscore
 * that is loading it, not a second copy of it. `loadCustomScorers` aliases `spanscore` to this
 * file (jiti's `alias`) and registers its own exports under this file's path first
 * ({@link RUNNING_EXPORTS}); each installed copy of spanscore has a path of its own, so two copies
 * in one process each hand over their own.
 *
 * Contract: a CommonJS module (this file is `.cts`, built to `.cjs`) whose `module.exports` is the
 * registered namespace, so a scorer's named imports read it as they would the package. Evaluated
 * afresh by every import (jiti runs with `moduleCache: false`), it costs a map lookup. Loaded
 * without a registration (imported directly), it throws and says so.
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

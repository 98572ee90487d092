/**
 * The registry as the tests last saw it pass. Tests that install into a fresh project (the
 * guides, the packed package with vitest) resolve every package, transitive ones included, as
 * the registry stood at this moment: npm's `before` setting, given through the environment so
 * the commands the guides print stay the ones a reader types.
 *
 * Without it a release published since the last green run reaches the tests unasked (vite 8.4.0
 * arrived through vitest's `^6 || ^7 || ^8` with an optional dependency this registry does not
 * serve, and the guides' `npm ci` then failed on the lockfile `npm install` wrote).
 *
 * To move it: docs/architecture.md, "Tests that install from the registry".
 */
export const REGISTRY_BEFORE = '2026-11-25T00:00:00.000Z';

/** The environment setting that holds npm to {@link REGISTRY_BEFORE}. */
export const heldRegistryEnv = (): Record<string, string> => ({
  npm_config_before: REGISTRY_BEFORE,
});
